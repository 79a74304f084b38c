import LabHarness

/// An experiment the lab knows: the word that selects it (`lab runloop`) and its declaration
/// (question, findings, report columns).
public struct LabEntry: Sendable {
    public var command: String
    public var definition: ExperimentDefinition

    public init(command: String, definition: ExperimentDefinition) {
        self.command = command
        self.definition = definition
    }
}

/// The experiments `lab` lists, runs and reports, in workshop order.
public struct LabCatalog: Sendable {
    public var entries: [LabEntry]

    public init(_ entries: [LabEntry]) { self.entries = entries }

    /// By command word, report name or executable name (`runloop`, `exp-runloop`).
    public func entry(named name: String) -> LabEntry? {
        entries.first { $0.command == name || $0.definition.name == name || $0.definition.executable == name }
    }
}

/// How `lab all` starts one experiment's run: an executable and the arguments that select the
/// experiment before its own flags. `lab` launches itself (`lab runloop --json`), so a fresh
/// `swift run lab all` needs nothing else built; tests point it at other programs.
public struct Launcher: Sendable {
    public var executable: String
    public var selector: @Sendable (LabEntry) -> [String]

    public init(executable: String, selector: @escaping @Sendable (LabEntry) -> [String]) {
        self.executable = executable
        self.selector = selector
    }

    /// This `lab` binary, selecting each experiment by its command word.
    public static var hosted: Launcher {
        Launcher(executable: ChildProcess.currentExecutablePath()) { [$0.command] }
    }
}
