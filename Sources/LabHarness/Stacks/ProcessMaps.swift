import Foundation

/// The file-backed mappings of a process (`/proc/PID/maps`), to tell which image an address
/// belongs to and where that image was loaded.
public struct ProcessMaps: Sendable {
    public struct Mapping: Sendable, Equatable {
        public var start: UInt
        public var end: UInt
        /// Offset in the file of `start`.
        public var offset: UInt
        public var path: String
    }

    var mappings: [Mapping]

    public init(mappings: [Mapping]) { self.mappings = mappings }

    /// The mappings of `pid`; empty when the process is gone or there is no `/proc`.
    public static func read(pid: Int32) -> ProcessMaps {
        guard let text = readWhole("/proc/\(pid)/maps") else { return ProcessMaps(mappings: []) }
        return parse(text)
    }

    /// A procfs file read to its end (they report size 0, so nothing may trust a size).
    static func readWhole(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// `start-end perms offset dev inode path` lines; anonymous and pseudo mappings are skipped.
    public static func parse(_ text: String) -> ProcessMaps {
        var result: [Mapping] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            guard path.hasPrefix("/") else { continue }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                let offset = UInt(fields[2], radix: 16)
            else { continue }
            result.append(Mapping(start: start, end: end, offset: offset, path: path))
        }
        return ProcessMaps(mappings: result)
    }

    /// The image holding `address`, and the address relative to where that image was loaded
    /// (what `addr2line` expects for a position-independent image).
    func locate(_ address: UInt) -> (path: String, relative: UInt)? {
        guard let hit = mappings.first(where: { $0.start <= address && address < $0.end }) else { return nil }
        let base = mappings.filter { $0.path == hit.path }.map { $0.start &- $0.offset }.min() ?? hit.start
        return (hit.path, address &- base)
    }
}
