import CLabSupport
import Foundation
import LabHarness

/// A report site written whole or not at all.
///
/// The site is built in a new folder beside `--out` (same file system, so the last step is a
/// rename), then swapped in: `renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)`
/// on Darwin, a plain rename when there was no old site. Until the swap a reader sees the old
/// site, whole; after it the new one, whole; the old one is then removed. When anything fails
/// (a full disk, a folder that vanished), the partial build is removed and the old site stays.
///
/// `--out` is replaced as a whole, so it must be new, empty, or a site `lab report` wrote
/// (`index.html`, `results.md`, `charts/*.svg` and nothing else): a folder holding anything
/// else (`--out .`, `--out ~`) is refused, never swapped away.
enum SiteFolder {
    static func failure(_ message: String, status: Int32 = 73) -> ReportCommand.Failure {
        ReportCommand.Failure(message: message, status: status)
    }

    /// Refuses an `--out` that is not a folder, or holds files a report site does not.
    static func checkReplaceable(_ out: URL) throws {
        let shown = UsageError.echo(out.path)
        var info = stat()
        if lstat(out.path, &info) != 0 {
            guard errno == ENOENT else {
                throw failure("cannot create '\(shown)': \(String(cString: strerror(errno)))")
            }
            var parent = stat()
            let folder = out.deletingLastPathComponent().path
            guard stat(folder, &parent) == 0, parent.st_mode & S_IFMT == S_IFDIR else {
                throw failure("cannot create '\(shown)': its parent folder '\(UsageError.echo(folder))' does not exist")
            }
            if let refused = folderRefusal(in: out) {
                throw failure("cannot create '\(shown)': its parent folder takes no new folder (\(refused))")
            }
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw failure(
                "cannot write a site to '\(shown)': it is \(kind(info.st_mode)), and --out takes a folder (a new one, or one lab report wrote)"
            )
        }
        if let refused = folderRefusal(in: out) {
            throw failure(
                "cannot replace '\(shown)': the folder that holds it takes no new folder (\(refused)), and the site is built beside it and swapped in"
            )
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        for entry in entries {
            let path = out.appendingPathComponent(entry).path
            var e = stat()
            guard lstat(path, &e) == 0 else { continue }
            let type = e.st_mode & S_IFMT
            let siteFile = (entry == "index.html" || entry == "results.md") && type == S_IFREG
            let chartsFolder = entry == "charts" && type == S_IFDIR && chartsOnly(path)
            guard siteFile || chartsFolder else {
                throw failure(
                    "'\(shown)' holds '\(UsageError.echo(entry))' (\(kind(e.st_mode))), which is not part of a report site; "
                        + "lab report replaces --out as a whole: choose a new or empty folder")
            }
        }
    }

    /// Why no folder can be made beside `out`, or `nil` when one can: tried by making an empty
    /// probe folder there and removing it at once. Asking `access(W_OK)` instead would say yes
    /// to root on a folder that takes nothing new (`/proc`), and the report would then fail only
    /// when it built the site, naming its own hidden folder rather than `--out`.
    private static func folderRefusal(in out: URL) -> String? {
        let probe = out.deletingLastPathComponent().appendingPathComponent(
            ".\(out.lastPathComponent).lab-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        guard mkdir(probe.path, 0o700) == 0 else { return String(cString: strerror(errno)) }
        // The probe holds nothing; a failure to remove it leaves an empty hidden folder, no data.
        _ = rmdir(probe.path)
        return nil
    }

    /// Builds the site in a fresh folder beside `out` with `write`, then swaps it in. A write
    /// that fails part way (`AtomicFile.WriteFailure`: a full disk, `EIO`) exits 74, anything
    /// else that stops the build 73; either way the old site is left whole.
    static func build(replacing out: URL, _ write: (URL) throws -> Void) throws {
        let parent = out.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(
            ".\(out.lastPathComponent).lab-report-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        guard mkdir(staging.path, 0o755) == 0 else {
            // Named as the user's `--out`: the hidden building folder is this command's own affair.
            throw failure(
                "cannot create '\(UsageError.echo(out.path))': no folder can be made beside it to build the site in (\(String(cString: strerror(errno))))"
            )
        }
        do {
            try write(staging)
            try swapIn(staging, for: out)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            if let failure = error as? ReportCommand.Failure { throw failure }
            // A file's path is told as it would be in `--out`, not in the hidden building folder.
            let inOut = { (path: String) in
                UsageError.echo(
                    path.hasPrefix(staging.path + "/") ? out.path + path.dropFirst(staging.path.count) : path)
            }
            if let refusal = error as? AtomicFile.Refusal {
                throw failure(
                    "cannot create '\(inOut(refusal.path))': \(refusal.reason); the old site, if any, is unchanged")
            }
            if let broken = error as? AtomicFile.WriteFailure {
                throw failure(
                    "could not write '\(inOut(broken.path))': \(Output.describe(broken.code)); "
                        + "the old site, if any, is unchanged", status: 74)
            }
            throw failure(
                "cannot write the site: \(UsageError.echo((error as NSError).localizedDescription)); the old site, if any, is unchanged"
            )
        }
    }

    /// Puts `staging` at `out`: renamed when there is no old site, else exchanged with it in
    /// one step and the old one (now at `staging`) removed.
    private static func swapIn(_ staging: URL, for out: URL) throws {
        if rename(staging.path, out.path) == 0 { return }
        let renameError = errno
        guard renameError == EEXIST || renameError == ENOTEMPTY else {
            throw failure(
                "cannot put the site at '\(UsageError.echo(out.path))': \(String(cString: strerror(renameError)))")
        }
        let exchanged = clab_exchange_paths(staging.path, out.path)
        guard exchanged == 0 else {
            throw failure(
                "cannot replace '\(UsageError.echo(out.path))' in one step: \(String(cString: strerror(exchanged))); the old site is unchanged"
            )
        }
        // `staging` now holds the old site; a failure to remove it leaves a hidden folder, never a mixed site.
        try? FileManager.default.removeItem(at: staging)
    }

    private static func chartsOnly(_ path: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return entries.allSatisfy { entry in
            var e = stat()
            return entry.hasSuffix(".svg") && lstat(path + "/" + entry, &e) == 0 && e.st_mode & S_IFMT == S_IFREG
        }
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a file"
        case S_IFDIR: return "a folder"
        case S_IFLNK: return "a symbolic link"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}
