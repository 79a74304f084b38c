extension UsageError {
    /// The longest stretch of a user's value an error message repeats.
    static let echoLimit = 80

    /// A value from the command line (or a file) made safe to repeat in a one-line message:
    /// control characters are shown as escapes (`\n`, `\u{1B}`), so a value can neither break
    /// the line nor drive the terminal, and anything past 80 characters is cut, with `…`.
    public static func echo(_ value: String) -> String {
        var out = ""
        var count = 0
        for scalar in value.unicodeScalars {
            let piece: String
            switch scalar {
            case "\n": piece = "\\n"
            case "\r": piece = "\\r"
            case "\t": piece = "\\t"
            default:
                let v = scalar.value
                // C0 and C1 controls, DEL, and the bidirectional overrides that reorder a line.
                if v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
                    || (0x2066...0x2069).contains(v)
                {
                    piece = "\\u{" + String(v, radix: 16, uppercase: true) + "}"
                } else {
                    piece = String(scalar)
                }
            }
            if count + piece.count > echoLimit { return out + "…" }
            out += piece
            count += piece.count
        }
        return out
    }
}
