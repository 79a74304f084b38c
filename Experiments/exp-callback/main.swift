// exp-callback: callback versus completion handler; declared in CallbackExperiment/CallbackExperiment.swift.
import LabHarness
import CallbackExperiment

ExperimentMain.run(callbackExperiment)
