import Foundation

/// Where text goes and whether it may be coloured.
public enum Terminal {
    /// Whether file descriptor `fd` is a terminal.
    public static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Colour is used only on a terminal, and never when `NO_COLOR` is set (https://no-color.org),
    /// or `TERM` is `dumb`.
    public static func colourAllowed(fd: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard isTTY(fd) else { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return true
    }

    /// The width the terminal report is wrapped to: `COLUMNS` when it holds a whole number in
    /// `usableColumns` (the user's explicit choice, and the only clue when the output is piped),
    /// else the size of the terminal open on `fd` when that is usable, else `defaultColumns`.
    public static func width(fd: Int32 = 1, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)),
           usableColumns.contains(columns) {
            return columns
        }
        if let columns = TerminalSize.columns(fd: fd), usableColumns.contains(columns) { return columns }
        return defaultColumns
    }

    /// Widths the report can be laid out in: narrower, a verdict's words no longer fit beside
    /// its mark; wider is no terminal's.
    public static let usableColumns = 20...1000

    /// The width when neither `COLUMNS` nor the terminal says: a projector's usual 100 columns.
    public static let defaultColumns = 100

    /// Writes `text` to stderr unbuffered.
    public static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes `text` to stdout unbuffered.
    public static func writeOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
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
