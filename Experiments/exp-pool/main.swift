// exp-pool: does a flood of blocking work on the global queue freeze unrelated work?
import LabHarness
import PoolExperiment

ExperimentMain.run(poolExperiment)
