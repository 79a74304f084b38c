import Foundation

/// The processes of the machine, as `/proc` lists them (Linux), for checking that nothing a run
/// started is left behind.
public enum ProcessTable {
    public struct Entry: Sendable, Equatable {
        public var pid: Int32
        public var parent: Int32
        /// The kernel's state letter (`Z` for a zombie).
        public var state: Character
        /// The arguments joined by spaces (empty for kernel threads and zombies).
        public var commandLine: String
    }

    /// Every process visible in `/proc`; empty where there is no `/proc`.
    public static func all() -> [Entry] {
        #if os(Linux)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = Int32(name),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
            let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let commandLine = String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            return Entry(pid: pid, parent: parent, state: state, commandLine: commandLine)
        }
        #else
        return []
        #endif
    }

    /// The processes whose parent is `pid` (this process by default).
    public static func children(of pid: Int32 = getpid()) -> [Entry] {
        all().filter { $0.parent == pid }
    }
}
