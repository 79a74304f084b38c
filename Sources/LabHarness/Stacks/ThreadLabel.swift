/// Readable labels for thread names in summary lines.
///
/// Linux keeps at most 15 bytes of a thread's name, and libdispatch names its pool workers
/// after their root queue (`com.apple.root.default-qos`, `com.apple.root.utility-qos.overcommit`
/// ...), whose kernel names are therefore the last 15 bytes: `oot.default-qos`,
/// `-qos.overcommit`. Those fragments read as noise in a summary; the JSON keeps them, since they
/// are what the kernel says, and summaries say `dispatch worker` instead.
public enum ThreadLabel {
    /// What a summary line calls the thread the kernel names `kernelName`.
    public static func readable(_ kernelName: String) -> String {
        isDispatchWorker(kernelName) ? "dispatch worker" : kernelName
    }

    /// Whether `kernelName` is the name (whole, or cut to the kernel's 15 bytes) of a
    /// libdispatch root-queue worker.
    static func isDispatchWorker(_ kernelName: String) -> Bool {
        guard !kernelName.isEmpty else { return false }
        return rootQueueNames.contains { full in
            full == kernelName || (kernelName.utf8.count == kernelNameLimit && full.hasSuffix(kernelName))
        }
    }

    /// Bytes of a thread name the Linux kernel keeps (16 with the terminating zero).
    static let kernelNameLimit = 15

    /// libdispatch's global root queues: one per quality of service, each with an overcommit twin.
    static let rootQueueNames: [String] = [
        "maintenance", "background", "utility", "default", "user-initiated", "user-interactive",
    ]
    .flatMap { qos in ["com.apple.root.\(qos)-qos", "com.apple.root.\(qos)-qos.overcommit"] }
}
