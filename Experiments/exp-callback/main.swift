// exp-callback: callback versus completion-handler APIs, measured on a small in-process chat
// library. The experiment itself is declared in CallbackExperiment/CallbackExperiment.swift.
import LabHarness
import CallbackExperiment

ExperimentMain.run(callbackExperiment)
