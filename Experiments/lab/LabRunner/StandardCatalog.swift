import CallbackExperiment
import DanceExperiment
import LabHarness
import PoolExperiment
import RunloopExperiment

extension LabCatalog {
    /// The lab's experiments in workshop order.
    public static let standard = LabCatalog([
        LabEntry(command: "runloop", definition: runloopExperiment),
        LabEntry(command: "pool", definition: poolExperiment),
        LabEntry(command: "dance", definition: danceExperiment),
        LabEntry(command: "callback", definition: callbackExperiment),
    ])
}
