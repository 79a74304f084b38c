import CLabSupport

/// The C library's `stdout` stream, which Swift 6 cannot touch as an imported global (shared
/// mutable state; and its symbol differs between glibc and Darwin), so the shim does.
enum StandardOutput {
    /// Makes `stdout` unbuffered, so that what a child process prints (Swift's `print` goes
    /// through `stdout`) reaches its parent's pipe at once and survives a hang or a crash.
    static func makeUnbuffered() {
        clab_stdout_unbuffered()
    }
}
