import CLabSupport
import Foundation

/// Linux's `/proc` thread files, read with the C library alone so the thread sampler and
/// the census stay cheap: the few fields of a `/proc/.../stat` line the lab needs, the
/// `Threads:` line of `status`, and the task ids of a `task` directory.
///
/// It uses only calls every POSIX system has, so it compiles everywhere (and its parser is
/// tested everywhere); only Linux has the files, so elsewhere every read finds nothing.
struct ProcStat {
    var comm: String
    var state: ThreadState
    var threadCount: Int

    /// The `Threads:` line of an open `/proc/.../status` descriptor, read and parsed in C
    /// (`clab_status_thread_count`). The thread sampler checks its fast count against this and
    /// falls back on it; see `FastThreadCounter` for what each source costs.
    static func threadCount(statusFD fd: Int32) -> Int? {
        let value = clab_status_thread_count(fd)
        return value >= 0 ? value : nil
    }

    static func read(path: String) -> ProcStat? {
        guard let text = readSmallFile(path) else { return nil }
        return parse(text)
    }

    /// `pid (comm) S ppid ...`: comm may hold spaces and parentheses, so fields are counted
    /// from the last `)`.
    static func parse(_ line: String) -> ProcStat? {
        let bytes = Array(line.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < bytes.count else { return nil }
        let comm = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        let state = ThreadState(procCode: bytes[close + 2])
        // Fields after `)`: 3 state, 4 ppid, ... 20 num_threads. Field 3 sits at index 0 here.
        let rest = bytes[(close + 2)...].split(separator: UInt8(ascii: " "))
        var threads = 0
        if rest.count > 17 { threads = Int(String(decoding: rest[rest.startIndex + 17], as: UTF8.self)) ?? 0 }
        return ProcStat(comm: comm, state: state, threadCount: threads)
    }

    /// Every thread under a `/proc/PID/task` directory with its name (`comm`, at most 15 bytes)
    /// and state; empty when the directory is gone (the process ended).
    static func threads(inTaskDirectory base: String) -> [ThreadInfo] {
        taskIDs(in: base).compactMap { tid in
            guard let stat = read(path: "\(base)/\(tid)/stat") else { return nil }
            var comm = readSmallFile("\(base)/\(tid)/comm") ?? stat.comm
            while comm.last == "\n" { comm.removeLast() }
            return ThreadInfo(id: tid, name: comm, state: stat.state)
        }
    }

    /// Reads a small procfs file in one `read`; procfs files report size 0, so no `stat`.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { readDescriptor(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    static func taskIDs(in directory: String) -> [Int] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var ids: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let id = Int(name) { ids.append(id) }
        }
        return ids.sorted()
    }
}

/// The C library's `read`, which `ProcStat.read(path:)` hides inside the type.
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
