import CallbackExperiment
import LabHarness

extension LabCatalog {
    /// The lab's experiments in workshop order.
    public static let standard = LabCatalog([
        LabEntry(command: "callback", definition: callbackExperiment),
    ])
}
