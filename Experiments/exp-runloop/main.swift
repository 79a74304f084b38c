// exp-runloop: run-loop threads, timeout timers and semaphores (see notes/runloop.md).
import LabHarness
import RunloopExperiment

ExperimentMain.run(runloopExperiment)
