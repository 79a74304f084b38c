// exp-dance: does a closure keep its owner alive? Weak-strong dance versus heap-stack dance.
import LabHarness
import DanceExperiment

ExperimentMain.run(danceExperiment)
