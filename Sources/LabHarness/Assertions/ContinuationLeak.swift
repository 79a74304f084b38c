import Foundation

/// The Swift runtime's line for a checked continuation dropped without a resume, quoted into an
/// async `assertCompletes` failure.
///
/// The runtime prints "SWIFT TASK CONTINUATION MISUSE: NAME leaked its continuation without
/// resuming it. …" on stderr when a `CheckedContinuation` is released unresumed (NAME is the
/// function that called `withCheckedContinuation`); the task awaiting it stays suspended for
/// good, which is why the operation overran. Stderr is shared by the whole process, so the
/// failure says only that the line was printed while the operation ran, not that the
/// operation printed it (tests that run in parallel print there too).
enum ContinuationLeak {
    /// What every such line contains (the runtime's wording since Swift 5.5).
    static let marker = "leaked its continuation"
    /// Lines quoted at most, so a flood of warnings cannot bury the failure.
    static let quotedAtMost = 3

    /// The failure's tail: the runtime's lines printed during the capture, quoted; nothing
    /// when there were none; the reason when stderr could not be copied.
    static func quote(_ capture: Result<StderrCapture, any Error>) -> String {
        switch capture {
        case .failure(let error):
            return "; the runtime's warnings could not be read (standard error could not be copied: \(error))"
        case .success(let capture):
            let lines = capture.lines(containing: marker).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !lines.isEmpty else { return "" }
            let quoted = lines.prefix(quotedAtMost).map { "\"\($0)\"" }.joined(separator: ", ")
            let more = lines.count > quotedAtMost ? " (and \(lines.count - quotedAtMost) more)" : ""
            return "; while it ran, the Swift runtime printed \(quoted)\(more): a continuation released without"
                + " a resume leaves the task that awaits it suspended for good"
        }
    }
}
