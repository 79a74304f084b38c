/// An aligned table for the terminal that fits a width: when its natural width is too wide, the
/// widest text columns give up columns first, and their cells wrap at spaces onto more lines of
/// the same row. A text column never gets narrower than its longest word, and a short value in a
/// right-aligned column (`250 ms`, `≥ 3.00 s`: up to `wholeValueWidth` columns) is never split
/// from its unit, so nothing is cut or torn apart. When
/// even that is too wide, the table is folded: the later columns go to a second block (and a
/// third...) under the first, each block led by the first column so its rows can be told apart.
public struct TextTable: Sendable {
    /// The first row is the header (see `hasHeader`).
    public var rows: [[String]]
    /// Columns whose cells are aligned to the right (numbers).
    var rightAligned: Set<Int>
    /// Printed before the first column of every line.
    var lead: String
    /// Spaces between columns.
    public var gap: Int
    /// Whether the first row is a header (its words may wrap in any column) or data.
    var hasHeader: Bool

    public init(
        rows: [[String]], rightAligned: Set<Int> = [], lead: String = "  ", gap: Int = 2, hasHeader: Bool = true
    ) {
        self.rows = rows
        self.rightAligned = rightAligned
        self.lead = lead
        self.gap = gap
        self.hasHeader = hasHeader
    }

    /// A text column keeps at least this many columns (or its longest cell, if shorter): a
    /// narrower one would read a word a line, and folding the table reads better.
    static let textRoom = 16

    /// Right-aligned cells up to this wide are values with their unit and stay on one line.
    static let wholeValueWidth = 12

    /// The narrowest each column can be: a right-aligned value whole, else its longest word or
    /// `textRoom`, whichever is wider (the header's words may still wrap).
    func floors() -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        return (0..<count).map { c in
            rows.enumerated().map { r, row -> Int in
                guard c < row.count else { return 0 }
                let width = displayWidth(row[c])
                if (r > 0 || !hasHeader) && rightAligned.contains(c) && width <= TextTable.wholeValueWidth {
                    return width
                }
                let word = row[c].split(separator: " ").map { displayWidth(String($0)) }.max() ?? 0
                // A sentence squeezed narrower than this reads a word a line: fold instead.
                return r > 0 || !hasHeader ? max(word, min(width, TextTable.textRoom)) : word
            }.max() ?? 0
        }
    }

    /// Each column's width once the table is fitted to `width` (without folding).
    public func columnWidths(fitting width: Int) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        var widths = (0..<count).map { c in rows.map { c < $0.count ? displayWidth($0[c]) : 0 }.max() ?? 0 }
        let floors = floors()
        let fixed = displayWidth(lead) + gap * max(count - 1, 0)
        while fixed + widths.reduce(0, +) > width {
            // The widest column that can still give up a column.
            guard let c = widths.indices.filter({ widths[$0] > floors[$0] }).max(by: { widths[$0] < widths[$1] }) else {
                break
            }
            widths[c] -= 1
        }
        return widths
    }

    /// The columns of each block: one block when the table fits `width` at its floors, else
    /// as many columns per block as fit, every block after the first led by column 0.
    public func blocks(fitting width: Int) -> [[Int]] {
        let floors = floors()
        let fixed = displayWidth(lead)
        guard floors.count > 2, fixed + floors.reduce(0, +) + gap * (floors.count - 1) > width else {
            return [Array(floors.indices)]
        }
        var blocks: [[Int]] = []
        var current = [0]
        var used = fixed + floors[0]
        for c in 1..<floors.count {
            if used + gap + floors[c] > width && current.count > 1 {
                blocks.append(current)
                current = [0]
                used = fixed + floors[0]
            }
            current.append(c)
            used += gap + floors[c]
        }
        blocks.append(current)
        return blocks
    }

    /// The table's lines. `style` colours a cell's text after padding: it receives the row
    /// (0 is the header), the column and the padded text of one of the cell's lines. Folded
    /// blocks are separated by an empty line.
    public func render(width: Int, style: (Int, Int, String) -> String = { _, _, text in text }) -> [String] {
        let blocks = blocks(fitting: width)
        guard blocks.count > 1 else { return renderFitted(width: width, style: style) }
        var lines: [String] = []
        for (b, columns) in blocks.enumerated() {
            if b > 0 { lines.append("") }
            let block = TextTable(
                rows: rows.map { row in columns.map { $0 < row.count ? row[$0] : "" } },
                rightAligned: Set(columns.indices.filter { rightAligned.contains(columns[$0]) }),
                lead: lead, gap: gap, hasHeader: hasHeader)
            lines += block.renderFitted(width: width) { r, c, text in style(r, columns[c], text) }
        }
        return lines
    }

    private func renderFitted(width: Int, style: (Int, Int, String) -> String) -> [String] {
        let widths = columnWidths(fitting: width)
        var lines: [String] = []
        for (r, row) in rows.enumerated() {
            let cells = widths.indices.map { c in
                c < row.count ? TextTable.fill(row[c], width: widths[c]) : [""]
            }
            let height = cells.map(\.count).max() ?? 1
            for l in 0..<height {
                var parts: [String] = []
                for c in widths.indices {
                    let text = l < cells[c].count ? cells[c][l] : ""
                    let padded = pad(text, to: widths[c], right: rightAligned.contains(c))
                    parts.append(text.isEmpty ? padded : style(r, c, padded))
                }
                var line = lead + parts.joined(separator: String(repeating: " ", count: gap))
                while line.hasSuffix(" ") { line.removeLast() }
                lines.append(line)
            }
        }
        return lines
    }

    /// A cell's text broken into lines of at most `width` columns (a longer word stays whole).
    static func fill(_ text: String, width: Int) -> [String] {
        guard displayWidth(text) > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if displayWidth(candidate) > width, !current.isEmpty {
                lines.append(current)
                current = String(word)
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
