import CallbackExperiment
import DanceExperiment
import LabHarness
import PoolExperiment

extension LabCatalog {
    /// The lab's experiments in workshop order.
    public static let standard = LabCatalog([
        LabEntry(command: "pool", definition: poolExperiment),
        LabEntry(command: "dance", definition: danceExperiment),
        LabEntry(command: "callback", definition: callbackExperiment),
    ])
}
