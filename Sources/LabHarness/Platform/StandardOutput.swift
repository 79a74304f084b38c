import Foundation

/// The C library's `stdout` stream, reached without touching the imported global (which
/// Swift 6 rejects as shared mutable state): the stream pointer is read from its exported
/// symbol once, on the thread that asks.
public enum StandardOutput {
    /// Makes `stdout` unbuffered, so that what a child process prints (Swift's `print` goes
    /// through `stdout`) reaches its parent's pipe at once and survives a hang or a crash.
    public static func makeUnbuffered() {
        guard let stream = stream() else { return }
        setvbuf(stream, nil, _IONBF, 0)
    }

    private static func stream() -> UnsafeMutablePointer<FILE>? {
        #if canImport(Darwin)
        let symbol = "__stdoutp"
        #else
        let symbol = "stdout"
        #endif
        guard let address = dlsym(dlopen(nil, RTLD_NOW), symbol) else { return nil }
        return address.assumingMemoryBound(to: UnsafeMutablePointer<FILE>?.self).pointee
    }
}
