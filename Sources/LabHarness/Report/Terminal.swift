import CLabSupport
import Foundation

/// Where text goes and whether it may be coloured.
public enum Terminal {
    /// Whether file descriptor `fd` is a terminal.
    public static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Colour is used only on a terminal, and never when `NO_COLOR` is set (https://no-color.org),
    /// or `TERM` is `dumb`.
    public static func colourAllowed(
        fd: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard isTTY(fd) else { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return escapesAllowed(environment: environment)
    }

    /// Whether escape sequences may be written to the terminal at all (colour or cursor
    /// control): not when `TERM` is `dumb`, which promises none are understood.
    public static func escapesAllowed(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["TERM"] != "dumb"
    }

    /// The width the terminal report is wrapped to: `COLUMNS` when it holds a whole number in
    /// `usableColumns` (the user's explicit choice, and the only clue when the output is piped),
    /// else the size of the terminal open on `fd` when that is usable, else `defaultColumns`.
    public static func width(fd: Int32 = 1, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int
    {
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)),
            usableColumns.contains(columns)
        {
            return columns
        }
        if let columns = TerminalSize.columns(fd: fd), usableColumns.contains(columns) { return columns }
        return defaultColumns
    }

    /// Widths the report can be laid out in: narrower, a verdict's words no longer fit beside
    /// its mark; wider is no terminal's.
    static let usableColumns = 20...1000

    /// The width when neither `COLUMNS` nor the terminal says: a projector's usual 100 columns.
    public static let defaultColumns = 100

    /// Writes `text` to stderr unbuffered. A failure is ignored: stderr is where failures are
    /// told, and when it cannot take a line there is nowhere left to tell it.
    public static func writeError(_ text: String) {
        _ = Output.standardError.write(text)
    }

    /// Writes `text` to stdout unbuffered. A failure never traps: the first one is kept (later
    /// writes to stdout are skipped) and `exit(_:program:)` turns it into the exit status.
    public static func writeOutput(_ text: String) {
        _ = Output.standardOutput.write(text)
    }

    /// Says that what goes to stdout from now on is the product (`--json`): if it cannot be
    /// delivered, for whatever reason, the run exits 74 (`EX_IOERR`) with a line saying why.
    static func stdoutCarriesProduct() {
        Output.standardOutput.carriesProduct = true
    }

    /// Sets up this process's writes, first thing in every main: `SIGPIPE` is ignored, so a
    /// closed pipe is a failed write the writer handles (`EPIPE`) rather than a death by
    /// signal; a standard stream the shell closed (`>&-`) is held on `/dev/null` and counts as
    /// failed (`EBADF`), so nothing the program opens later takes its number.
    public static func prepareOutput() {
        clab_ignore_broken_pipe()
        _ = clab_hold_closed_stream(0)
        if clab_hold_closed_stream(1) == 1 { Output.standardOutput.markClosed() }
        if clab_hold_closed_stream(2) == 1 { Output.standardError.markClosed() }
    }

    /// `EX_IOERR` from sysexits.h: the report could not be written.
    static let ioErrorStatus: Int32 = 74

    /// The status to exit with, given the one the run earned:
    /// - stdout took everything: the earned status;
    /// - stdout was closed or its reader went away (`EBADF`, `EPIPE`: `>&-`, `| head -1`)
    ///   while it carried the human report: the earned status, quietly (the reader chose not
    ///   to read; the verdict stands);
    /// - any other failure (`ENOSPC`, `EIO`: `> /dev/full`, a full disk), or any failure while
    ///   stdout carried the JSON report: 74, after one line on stderr naming the problem.
    public static func exitStatus(earned: Int32, program: String) -> Int32 {
        guard let failure = Output.standardOutput.failure else { return earned }
        let closed = failure == EPIPE || failure == EBADF
        if closed && !Output.standardOutput.carriesProduct { return earned }
        let what = Output.standardOutput.carriesProduct ? "the JSON report" : "the report"
        writeError("\(program): \(what) could not be written to stdout: \(Output.describe(failure))\n")
        return ioErrorStatus
    }

    /// Exits with `exitStatus(earned:program:)`.
    public static func exit(_ earned: Int32, program: String) -> Never {
        Foundation.exit(exitStatus(earned: earned, program: program))
    }
}

/// ANSI styles, applied only when colour is on.
public struct Style: Sendable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    public func green(_ s: String) -> String { wrap(s, "32") }
    public func red(_ s: String) -> String { wrap(s, "31") }
    public func yellow(_ s: String) -> String { wrap(s, "33") }
    public func dim(_ s: String) -> String { wrap(s, "2") }
    public func bold(_ s: String) -> String { wrap(s, "1") }

    /// Colour by grade: expected green, interesting yellow, forbidden red.
    public func grade(_ s: String, _ grade: Grade?) -> String {
        switch grade {
        case .expected?: return green(s)
        case .interesting?: return yellow(s)
        case .forbidden?: return red(s)
        case nil: return s
        }
    }

    private func wrap(_ s: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}

/// Display width of a string, counting each Unicode scalar outside combining marks as one
/// column (good enough for the symbols the lab prints) and ignoring ANSI escape sequences.
func displayWidth(_ s: String) -> Int {
    var width = 0
    var inEscape = false
    for scalar in s.unicodeScalars {
        if inEscape { if scalar == "m" { inEscape = false }; continue }
        if scalar == "\u{1B}" { inEscape = true; continue }
        if scalar.properties.generalCategory == .nonspacingMark { continue }
        width += 1
    }
    return width
}

func pad(_ s: String, to width: Int, right: Bool = false) -> String {
    let gap = max(0, width - displayWidth(s))
    return right ? String(repeating: " ", count: gap) + s : s + String(repeating: " ", count: gap)
}
