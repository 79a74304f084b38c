/// A completion-handler lookup bridged to `async` with a checked continuation: the classic
/// early return that skips the resume.
public struct NameDirectory: Sendable {
    public init() {}

    /// The completion-handler API being bridged: calls `completion` with nil for an empty id.
    func lookUp(_ id: String, completion: @escaping @Sendable (String?) -> Void) {
        completion(id.isEmpty ? nil : "user-\(id)")
    }

    /// Buggy: a lookup that finds nothing returns from the closure without resuming, so the
    /// continuation is released unresumed and the caller waits forever.
    public func leakyDisplayName(for id: String) async -> String {
        await withCheckedContinuation { continuation in
            lookUp(id) { name in
                guard let name else { return }
                continuation.resume(returning: name)
            }
        }
    }

    /// Fixed: every path resumes exactly once.
    public func displayName(for id: String) async -> String {
        await withCheckedContinuation { continuation in
            lookUp(id) { name in continuation.resume(returning: name ?? "anonymous") }
        }
    }
}

/// Work that traps, for checking what reaches stderr when a process crashes.
public enum CrashingWork {
    public static func crash(_ message: String) -> Never {
        fatalError(message)
    }
}
