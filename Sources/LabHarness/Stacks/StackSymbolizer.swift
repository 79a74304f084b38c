import Foundation
import Synchronization

/// Names the raw return addresses of a snapshot: `symbol (file:line)` from `addr2line` (one run
/// per image, each within the time left), Swift symbols demangled by the runtime's own
/// `swift_demangle`. A return address in code the optimizer inlined names every function
/// inlined there, innermost first, each with its line: in a release build a private helper
/// inlined into its caller is still a frame of the stack. Frames of system libraries read
/// `symbol (in libdispatch.so)`; an address nothing names reads `image+0xOFFSET`.
///
/// The handler that took the stack and the signal trampoline are dropped; every later frame but
/// the first is a return address, so the line looked up is the one of the call (address - 1).
public struct StackSymbolizer: Sendable {
    /// The `addr2line` to run; `nil` leaves every frame as `image+0xOFFSET`.
    var tool: String?

    public init(tool: String? = StackSymbolizer.findTool()) {
        self.tool = tool
    }

    /// `addr2line` on the PATH or in `/usr/bin` (binutils, which the Swift toolchain needs for
    /// linking on Linux).
    public static func findTool() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return dirs.map { $0 + "/addr2line" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public struct Named: Sendable {
        public var frames: [Int: [String]]
        /// One line when some frames could not be named.
        public var note: String?
    }

    public func name(_ answers: [Int: [UInt]], maps: ProcessMaps, budget: Seconds) -> Named {
        let start = MonotonicClock.now()
        // Which address to look up for every raw frame, by image.
        var lookups: [String: Set<UInt>] = [:]
        var plan: [Int: [(path: String, relative: UInt)?]] = [:]
        var absolute: [String: Bool] = [:]
        for (tid, raw) in answers {
            plan[tid] = raw.enumerated().map { index, address -> (path: String, relative: UInt)? in
                guard let (path, relative) = maps.locate(index == 0 ? address : address &- 1) else { return nil }
                if absolute[path] == nil { absolute[path] = Self.isExecutable(path) }
                let key = absolute[path]! ? (index == 0 ? address : address &- 1) : relative
                lookups[path, default: []].insert(key)
                return (path, key)
            }
        }
        var names: [String: [UInt: [Name]]] = [:]
        var failures: [String] = []
        if let tool {
            // The executable first: its frames are the ones that name lab and user code.
            let images = lookups.keys.sorted { a, b in Self.isSystem(a) == Self.isSystem(b) ? a < b : !Self.isSystem(a)
            }
            for image in images {
                let key = ImageKey(image), known = key.map { key in Self.cache.withLock { $0[key] ?? [:] } } ?? [:]
                let missing = lookups[image]!.filter { known[$0] == nil }
                names[image] = known
                if missing.isEmpty { continue }
                let left = budget - (MonotonicClock.now() - start)
                guard left > 0.05 else {
                    failures.append("no time left to name \((image as NSString).lastPathComponent)"); continue
                }
                if let found = Self.run(tool, image: image, addresses: Array(missing), budget: left) {
                    names[image]?.merge(found) { $1 }
                    if let key { Self.cache.withLock { $0[key, default: [:]].merge(found) { $1 } } }
                } else {
                    failures.append("addr2line failed on \((image as NSString).lastPathComponent)")
                }
            }
        } else {
            failures.append("no addr2line found, frames are image+offset")
        }

        var frames: [Int: [String]] = [:]
        for (tid, entries) in plan {
            var labels: [String] = []
            for entry in entries {
                guard let entry else { labels.append("??"); continue }
                let image = (entry.path as NSString).lastPathComponent
                let found = (names[entry.path]?[entry.relative] ?? []).filter { $0.symbol != nil }
                if found.isEmpty { labels.append("\(image)+0x\(String(entry.relative, radix: 16))") }
                for name in found {
                    let symbol = name.symbol!
                    if Self.isSystem(entry.path) {
                        labels.append("\(symbol) (in \(image))")
                    } else if let line = name.line {
                        labels.append("\(symbol) (\(line))")
                    } else {
                        labels.append(symbol)
                    }
                }
            }
            // Drop the handler's own frame and the signal trampoline after it (which the symbol
            // table names after its neighbour, `__restore_rt` having no symbol of its own).
            if let handler = labels.firstIndex(where: { $0.hasPrefix("clab_stacks_handler") }) {
                labels.removeFirst(min(labels.count, handler + 2))
            }
            frames[tid] = labels
        }
        return Named(frames: frames, note: failures.isEmpty ? nil : failures.joined(separator: "; "))
    }

    /// Names looked up before in this process, by image and address: the same few frames (a
    /// futex wait, a sleep) recur in snapshot after snapshot, and `addr2line` on a system library
    /// whose debug information lives in a separate, compressed file took 60-130 ms a run.
    private static let cache = Mutex<[ImageKey: [UInt: [Name]]]>([:])

    /// One function at an address: `nil` parts are what `addr2line` could not name.
    typealias Name = (symbol: String?, line: String?)

    /// An image as it is on disk now: a file rebuilt at the same path is another image.
    private struct ImageKey: Hashable, Sendable {
        let path: String, size: UInt64, modified: Double
        init?(_ path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.uint64Value,
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
            else { return nil }
            (self.path, self.size, self.modified) = (path, size, modified)
        }
    }

    /// A C++ function's name without its parameter list (`swift::MetadataCache::get(char const*,
    /// unsigned long) const` reads `swift::MetadataCache::get`): the list says nothing a stack
    /// needs, and a mangled one (`_ZL39swift_getTypeByMangledNameInContextImplPKcm...`, 105
    /// characters) was one word too wide for the report's lines.
    static func withoutParameters(_ name: String) -> String {
        var text = Substring(name)
        if text.hasSuffix(" const") { text = text.dropLast(" const".count) }
        guard text.hasSuffix(")") else { return name }
        var depth = 0, index = text.endIndex
        while index > text.startIndex {
            index = text.index(before: index)
            if text[index] == ")" {
                depth += 1
            } else if text[index] == "(" {
                depth -= 1
                if depth == 0 { return index == text.startIndex ? name : String(text[..<index]) }
            }
        }
        return name
    }

    /// Images of the system and the Swift runtime: their frames are the noise a summary trims.
    static func isSystem(_ path: String) -> Bool {
        if path.hasPrefix("/lib/") || path.hasPrefix("/lib64/") || path.hasPrefix("/usr/lib") { return true }
        return path.contains("/usr/lib/swift/")
    }

    /// A non-position-independent executable (ELF `ET_EXEC`): its addresses are absolute.
    static func isExecutable(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let header = handle.readData(ofLength: 18)
        return header.count == 18 && header[16] == 2 && header[17] == 0
    }

    /// `addr2line -a -f -i -e IMAGE ADDR...`: for each address a line with the address, then
    /// two lines per function there, innermost first (more than one where code was inlined):
    /// the function (`??` when unknown) and `file:line` (`??:0` or `??:?` when unknown).
    static func run(
        _ tool: String, image: String, addresses: [UInt], budget: Seconds
    ) -> [UInt: [Name]]? {
        // `-C` demangles C++ (the Swift runtime's own frames); Swift's names pass through it
        // unchanged and are demangled below.
        let arguments = ["-a", "-f", "-i", "-C", "-e", image] + addresses.map { "0x" + String($0, radix: 16) }
        guard let result = try? ChildProcess.run(ChildSpec(executable: tool, arguments: arguments, budget: budget)),
            result.outcome == .completed
        else { return nil }
        return parse(result.stdout, addresses: addresses)
    }

    /// The names of `run`'s output, by address. An address line starts each answer; the
    /// addresses come back in the order asked.
    static func parse(_ output: String, addresses: [UInt]) -> [UInt: [Name]] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        var named: [UInt: [Name]] = [:]
        var index = 0
        for address in addresses {
            guard index < lines.count,
                let echoed = lines[index].hasPrefix("0x") ? UInt(lines[index].dropFirst(2), radix: 16) : nil,
                echoed == address
            else { break }
            index += 1
            var found: [Name] = []
            while index + 1 < lines.count, !isAddressLine(lines[index]) {
                found.append(name(function: lines[index], place: lines[index + 1]))
                index += 2
            }
            named[address] = found
        }
        return named
    }

    /// `0x00000000000a0fe0`: the line `-a` puts before each address's answer (no function name
    /// reads so: C names cannot start with a digit, Swift's mangled ones start with `$s`).
    private static func isAddressLine(_ line: String) -> Bool {
        line.hasPrefix("0x") && line.count > 2 && line.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// One function's two lines, named.
    private static func name(function: String, place rawPlace: String) -> Name {
        let place = rawPlace.split(separator: " ").first.map(String.init) ?? ""
        let symbol =
            function == "??" || function.isEmpty
            ? nil
            : SwiftDemangler.isMangled(function) ? SwiftDemangler.demangle(function) : withoutParameters(function)
        var line: String?
        if !place.hasPrefix("??"), let colon = place.lastIndex(of: ":"), place[place.index(after: colon)...] != "0",
            place[place.index(after: colon)...] != "?"
        {
            line = (String(place[..<colon]) as NSString).lastPathComponent + String(place[colon...])
        }
        return (symbol, line)
    }
}
