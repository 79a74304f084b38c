import Foundation

/// The size the kernel reports for a terminal, the one call the report's width needs from the
/// operating system. `TIOCGWINSZ` is imported as a different integer type on each platform.
enum TerminalSize {
    /// Columns of the terminal open on `fd`, or `nil` when `fd` is not a terminal (a pipe, a
    /// file) or the kernel reports no size.
    static func columns(fd: Int32) -> Int? {
        var size = winsize()
        #if os(Linux)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        guard ioctl(fd, request, &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
