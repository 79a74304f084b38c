import CLabSupport

/// The size the kernel reports for a terminal, the one call the report's width needs from the
/// operating system (`TIOCGWINSZ`, whose integer type Swift imports differently per platform,
/// so the shim makes the call).
public enum TerminalSize {
    /// Columns of the terminal open on `fd`, or `nil` when `fd` is not a terminal (a pipe, a
    /// file) or the kernel reports no size.
    static func columns(fd: Int32) -> Int? {
        let columns = clab_terminal_columns(fd)
        return columns > 0 ? Int(columns) : nil
    }

    /// Tells the terminal open on `fd` that it is `columns` wide (and `rows` high), as a
    /// terminal emulator does when its window is resized: for tests that check the report
    /// follows a real terminal's size. Returns whether the kernel accepted it.
    public static func resize(fd: Int32, rows: UInt16, columns: UInt16) -> Bool {
        clab_terminal_set_size(fd, rows, columns) == 0
    }
}
