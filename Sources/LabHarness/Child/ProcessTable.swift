import Foundation

/// The processes of the machine, as the kernel lists them (Linux `/proc`, Darwin libproc), for
/// checking that nothing a run started is left behind.
public enum ProcessTable {
    public struct Entry: Sendable, Equatable {
        public var pid: Int32
        public var parent: Int32
        /// The kernel's state letter (`Z` for a zombie).
        public var state: Character
        /// The arguments joined by spaces (empty for kernel threads and zombies).
        public var commandLine: String
    }

    /// Every process the kernel shows; empty where it shows none (see `PlatformSeam`).
    public static func all() -> [Entry] {
        HostPlatform.processes()
    }

    /// `nil` when the table can be trusted to show processes (it lists this very one); else why
    /// not. A check that "nothing is left" over an empty table would pass without looking, so
    /// such checks skip with this reason instead.
    public static var unavailableReason: String? {
        let me = getpid()
        return all().contains(where: { $0.pid == me })
            ? nil : "the process table is unavailable on this platform: it does not even list this process (\(me))"
    }

    /// The processes whose parent is `pid` (this process by default).
    public static func children(of pid: Int32 = getpid()) -> [Entry] {
        all().filter { $0.parent == pid }
    }
}
