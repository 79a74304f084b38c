import LabHarness

extension LabCatalog {
    /// The lab's experiments in workshop order. (Filled in as each experiment lands.)
    public static let standard = LabCatalog([])
}
