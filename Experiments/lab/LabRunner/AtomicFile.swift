import Foundation
import LabHarness

/// Writes files so that a reader never sees half of one, and only ever as regular files: the
/// bytes go to a new temporary file in the same directory (created exclusively, never through
/// a symlink), which is then renamed over the target (rename is atomic within a file system).
/// An interrupted run leaves either the old file or the new one, never a torn one.
///
/// A symlink, directory, FIFO, device or socket at the target is refused, never replaced: a
/// careless `--json /dev/null` run as root must not turn `/dev/null` into a file, and a link
/// planted in an output directory must not redirect a write elsewhere.
public enum AtomicFile {
    /// Why a target cannot be written; its message is one line naming the path.
    public struct Refusal: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot create '\(UsageError.echo(path))': \(reason)" }
    }

    /// Checks, without writing anything, that `url` can be written: its directory exists and is
    /// writable, and nothing but a regular file is there already. Commands call it for every
    /// output before they start work.
    public static func checkTarget(_ url: URL) throws {
        let path = url.path
        var info = stat()
        if lstat(path, &info) == 0 {
            let type = info.st_mode & S_IFMT
            guard type == S_IFREG else {
                throw Refusal(path: path, reason: "it is \(describe(type)); outputs go to regular files only")
            }
        } else if errno != ENOENT {
            throw Refusal(path: path, reason: String(cString: strerror(errno)))
        }
        let directory = url.deletingLastPathComponent().path
        var folder = stat()
        guard stat(directory, &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR else {
            throw Refusal(path: path, reason: "its directory is missing")
        }
        guard access(directory, W_OK) == 0 else { throw Refusal(path: path, reason: "its directory is not writable") }
    }

    public static func write(_ data: Data, to url: URL) throws {
        try checkTarget(url)
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Refusal(path: url.path, reason: String(cString: strerror(errno))) }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    failure = n < 0 ? errno : EIO; return
                }
            }
        }
        if close(fd) != 0 && failure == 0 { failure = errno }
        do {
            if failure != 0 { throw Refusal(path: url.path, reason: String(cString: strerror(failure))) }
            try checkTarget(url)  // again, just before the rename: nothing may have appeared meanwhile
            if rename(temporary.path, url.path) != 0 {
                throw Refusal(path: url.path, reason: String(cString: strerror(errno)))
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    public static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFLNK: return "a symbolic link"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}
