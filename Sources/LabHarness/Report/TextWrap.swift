/// Word wrapping for the terminal report: lines are broken at spaces so that none is wider than
/// the terminal, and every continuation line starts with a hanging indent, so a wrapped line
/// still reads as one item under the line it continues.
///
/// Widths are display widths (`displayWidth`): ANSI colour codes count for nothing, each other
/// Unicode scalar for one column. The text between breaks is kept as it was, spaces and colour
/// codes included, so aligned columns on a line's first part stay aligned. A single word wider
/// than the room left (a long path, an address) is never cut: it overflows its line, alone.
public enum TextWrap {
    /// `line` broken into lines of at most `width` columns; continuation lines start with
    /// `indent`, or, when it is `nil`, with the line's own leading spaces plus four.
    ///
    /// An indent that would leave fewer than `minimumRoom` columns for words is shortened, so
    /// that a narrow terminal still gets words on every line.
    public static func wrap(_ line: String, width: Int, indent: String? = nil) -> [String] {
        guard displayWidth(line) > width else { return [line] }
        let hanging = hangingIndent(for: line, requested: indent, width: width)
        var lines: [String] = []
        var rest = Array(line.unicodeScalars)
        var prefix: [Unicode.Scalar] = []
        while true {
            let (head, tail) = split(prefix + rest, width: width, after: prefix.count)
            guard let tail else {
                lines.append(String(String.UnicodeScalarView(head)))
                break
            }
            lines.append(String(String.UnicodeScalarView(head)))
            rest = tail
            prefix = Array(hanging.unicodeScalars)
        }
        return lines
    }

    /// Every line of `text` (split at newlines) wrapped as `wrap` does.
    public static func wrapLines(_ text: String, width: Int, indent: String? = nil) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
            wrap(String($0), width: width, indent: indent)
        }
    }

    /// Columns a continuation line keeps for its words at the least.
    public static let minimumRoom = 24

    static func hangingIndent(for line: String, requested: String?, width: Int) -> String {
        let leading = line.prefix { $0 == " " }.count
        let columns = requested.map(displayWidth) ?? leading + 4
        let allowed = max(0, min(columns, width - minimumRoom))
        if let requested, displayWidth(requested) <= allowed { return requested }
        return String(repeating: " ", count: allowed)
    }

    /// The longest head of `scalars` that ends before a space and fits in `width` columns, and
    /// what follows that space run (`nil` when everything fits or no space follows). The first
    /// `protected` scalars (the hanging indent) never count as a break.
    private static func split(
        _ scalars: [Unicode.Scalar], width: Int, after protected: Int
    ) -> ([Unicode.Scalar], [Unicode.Scalar]?) {
        var column = 0
        var inEscape = false
        var lastBreak: Int?  // index of the first space of the last space run that fits
        var index = 0
        var sawWord = false
        while index < scalars.count {
            let scalar = scalars[index]
            if inEscape {
                if scalar == "m" { inEscape = false }
                index += 1
                continue
            }
            if scalar == "\u{1B}" { inEscape = true; index += 1; continue }
            if scalar == " " && index >= protected && sawWord {
                if column <= width, lastBreak.map({ scalars[$0..<index].contains { $0 != " " } }) ?? true {
                    lastBreak = index
                }
            } else if scalar != " " && index >= protected {
                sawWord = true
            }
            if scalar.properties.generalCategory != .nonspacingMark { column += 1 }
            if column > width && scalar != " " {
                // Overflow: break at the last space that fit; a first word wider than the line
                // runs on to the next space.
                if let cut = lastBreak { return finish(scalars, at: cut) }
                if let next = scalars[index...].firstIndex(of: " ") { return finish(scalars, at: next) }
                return (scalars, nil)
            }
            index += 1
        }
        return (scalars, nil)
    }

    /// The head before `cut` (trailing spaces dropped) and the rest after the space run there;
    /// the rest is `nil` when it holds nothing but spaces and colour codes.
    private static func finish(_ scalars: [Unicode.Scalar], at cut: Int) -> ([Unicode.Scalar], [Unicode.Scalar]?) {
        var end = cut
        while end > 0 && scalars[end - 1] == " " { end -= 1 }
        var start = cut
        while start < scalars.count && scalars[start] == " " { start += 1 }
        let tail = Array(scalars[start...])
        return (Array(scalars[..<end]), displayWidth(String(String.UnicodeScalarView(tail))) == 0 ? nil : tail)
    }
}
