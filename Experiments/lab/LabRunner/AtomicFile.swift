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
    /// Why a file cannot be created at a target (a missing or read-only folder, something
    /// other than a regular file in the way); its message is one line naming the path. Commands
    /// exit 73 (`EX_CANTCREAT`) for it.
    public struct Refusal: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot create '\(UsageError.echo(path))': \(reason)" }
    }

    /// A write that failed after its file was created: a full disk (`ENOSPC`), a device error
    /// (`EIO`), a file-size limit (`EFBIG`). The target is left as it was and the partial
    /// temporary file is removed. Commands exit 74 (`EX_IOERR`) for it, not 73: the file could be
    /// created, so retrying elsewhere is not the remedy, freeing space or fixing the device is.
    public struct WriteFailure: Error, CustomStringConvertible {
        public var path: String
        /// The `errno` of the failed `write` or `close`.
        public var code: Int32
        public var description: String {
            "could not write '\(UsageError.echo(path))': \(Output.describe(code)); it is left as it was"
        }
    }

    /// Checks, before any work starts, that `url` can take a file: nothing but a regular file is
    /// there already, its directory exists, and a file can in fact be created in that directory.
    /// The last is tried, not asked: an empty probe file is created beside the target and removed
    /// at once. `access(W_OK)` answers yes for root wherever the mode bits do not matter to root,
    /// also on a directory that takes no new files (`/proc`), so asking would let a long run end
    /// with an output it cannot create. Commands call it for every output before they start.
    public static func checkTarget(_ url: URL) throws {
        try checkPlace(url)
        let probe = sibling(of: url, kind: "probe")
        let fd = open(probe.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Refusal(
                path: url.path, reason: "its directory takes no new file (\(String(cString: strerror(errno))))")
        }
        // Nothing was written to the probe, so neither call can lose data; at worst an empty
        // hidden file stays behind.
        _ = close(fd)
        _ = unlink(probe.path)
    }

    /// The part of `checkTarget` that creates nothing: nothing but a regular file is at `url`,
    /// and its directory exists. `write` runs it before creating its temporary file and again
    /// just before the rename, so nothing that appeared meanwhile is replaced.
    private static func checkPlace(_ url: URL) throws {
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
    }

    /// A new hidden name beside `url`, for a temporary or probe file.
    private static func sibling(of url: URL, kind: String) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).\(kind)")
    }

    /// Writes `data` to `url` whole or not at all. Throws `Refusal` when the file cannot be
    /// created there, `WriteFailure` when writing it failed part way; either way the target is
    /// left as it was.
    public static func write(_ data: Data, to url: URL) throws {
        try checkPlace(url)
        let temporary = sibling(of: url, kind: "tmp")
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
            if failure != 0 { throw WriteFailure(path: url.path, code: failure) }
            try checkPlace(url)  // again, just before the rename: nothing may have appeared meanwhile
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
