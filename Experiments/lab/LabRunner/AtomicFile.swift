import Foundation

/// Writes files so that a reader never sees half of one: the bytes go to a temporary file in
/// the same directory, which is then renamed over the target (rename is atomic within a file
/// system). An interrupted run leaves either the old file or the new one, never a torn one.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try data.write(to: temporary, options: [])
            if rename(temporary.path, url.path) != 0 {
                let code = errno
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(code))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }

    public static func write(_ text: String, to url: URL) throws {
        try write(Data(text.utf8), to: url)
    }
}
