/// The width the terminal report is being laid out in, for the experiments' own sections.
///
/// An experiment's sections are drawn by a function of the report alone, called while a report
/// is rendered: in the experiment's process for its own report, in `lab all`'s for the charts it
/// prints. Whoever renders sets `columns` for the call, so a section fits the output it goes to
/// without every section taking a width parameter.
public enum ReportWidth {
    /// Set by the renderer for the time of a render; `nil` outside one.
    @TaskLocal public static var columns: Int?

    /// `columns` during a render, else the width of the terminal on stdout (`Terminal.width`).
    public static var current: Int { columns ?? Terminal.width(fd: 1) }
}
