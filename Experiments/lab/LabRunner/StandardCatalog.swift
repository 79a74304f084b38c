import CallbackExperiment
import DanceExperiment
import LabHarness

extension LabCatalog {
    /// The lab's experiments in workshop order.
    public static let standard = LabCatalog([
        LabEntry(command: "dance", definition: danceExperiment),
        LabEntry(command: "callback", definition: callbackExperiment),
    ])
}
