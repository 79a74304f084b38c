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

    /// Columns of the terminal on `fd`, or 100 when unknown.
    public static func width(fd: Int32 = 2) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 100
    }

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
