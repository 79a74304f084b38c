import Foundation

/// The size the kernel reports for a terminal, the one call the report's width needs from the
/// operating system. `TIOCGWINSZ` is imported as a different integer type on each platform.
public enum TerminalSize {
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

    /// Tells the terminal open on `fd` that it is `columns` wide (and `rows` high), as a
    /// terminal emulator does when its window is resized: for tests that check the report
    /// follows a real terminal's size. Returns whether the kernel accepted it.
    public static func resize(fd: Int32, rows: UInt16, columns: UInt16) -> Bool {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        #if os(Linux)
        let request = UInt(TIOCSWINSZ)
        #else
        let request = TIOCSWINSZ
        #endif
        return ioctl(fd, request, &size) == 0
    }
}
