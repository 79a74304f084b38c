/// A minimal SVG writer: shapes and text appended in drawing order, every attribute value and
/// text node escaped, and a standalone document (with `xmlns`) that any browser opens on its own.
struct SVGCanvas {
    let width: Double
    let height: Double
    let title: String
    private var body: [String] = []

    init(width: Double, height: Double, title: String) {
        self.width = width
        self.height = height
        self.title = title
    }

    /// The standalone document.
    var document: String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element
    }

    /// The `<svg>` element alone, for inlining in HTML.
    var element: String {
        var lines = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">",
            "<title>\(escape(SVGCanvas.cut(title, to: 200)))</title>",
            "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>",
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    mutating func line(
        _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String = "#888", width w: Double = 1,
        dash: String? = nil
    ) {
        body.append(
            "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(w))\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>"
        )
    }

    mutating func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, opacity: Double = 1) {
        body.append(
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(w, 0)))\" height=\"\(n(max(h, 0)))\" fill=\"\(fill)\"\(opacity < 1 ? " fill-opacity=\"\(n(opacity))\"" : "")/>"
        )
    }

    mutating func circle(
        _ cx: Double, _ cy: Double, r: Double, fill: String, opacity: Double = 1, tooltip: String? = nil
    ) {
        let open =
            "<circle cx=\"\(n(cx))\" cy=\"\(n(cy))\" r=\"\(n(r))\" fill=\"\(fill)\"\(opacity < 1 ? " fill-opacity=\"\(n(opacity))\"" : "")"
        if let tooltip {
            body.append(open + "><title>\(escape(SVGCanvas.cut(tooltip, to: 200)))</title></circle>")
        } else {
            body.append(open + "/>")
        }
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width w: Double = 2) {
        guard !points.isEmpty else { return }
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        body.append(
            "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(w))\" stroke-linejoin=\"round\"/>"
        )
    }

    mutating func polygon(_ points: [(Double, Double)], fill: String) {
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        body.append("<polygon points=\"\(list)\" fill=\"\(fill)\"/>")
    }

    enum Anchor: String { case start, middle, end }

    /// Text a chart shows is cut to what fits on it: a 100 kB name drawn on every dot of a
    /// chart would make a page of gigabytes.
    static func cut(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    mutating func text(
        _ x: Double, _ y: Double, _ content: String, anchor: Anchor = .start, size: Double = 12,
        fill: String = "#222", bold: Bool = false, rotate: Double? = nil
    ) {
        var attributes =
            "x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor.rawValue)\" font-size=\"\(n(size))\" fill=\"\(fill)\""
        if bold { attributes += " font-weight=\"bold\"" }
        if let rotate { attributes += " transform=\"rotate(\(n(rotate)) \(n(x)) \(n(y)))\"" }
        body.append("<text \(attributes)>\(escape(SVGCanvas.cut(content, to: 120)))</text>")
    }

    /// A number for an attribute: at most two decimals, no exponent. Coordinates are clamped
    /// to ±1e6 (far outside any canvas) so no value can overflow the conversion to `Int`.
    private func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (min(max(value, -1e6), 1e6) * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format2: rounded)
    }
}

/// XML escaping for text and attribute values.
func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.count)
    for c in s.unicodeScalars {
        switch c {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        default:
            // Control characters are not allowed in XML 1.0 (tab and newlines aside).
            if c.value < 0x20 && c != "\t" && c != "\n" && c != "\r" {
                out += " "
            } else {
                out.unicodeScalars.append(c)
            }
        }
    }
    return out
}

private extension String {
    init(format2 value: Double) {
        let cents = Int((abs(value) * 100).rounded())
        let sign = value < 0 ? "-" : ""
        let fraction = cents % 100
        self = "\(sign)\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// The lab's palette: distinguishable, print-friendly colours.
enum Palette {
    static let series = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
    ]
    static func colour(_ index: Int) -> String { series[index % series.count] }
    static let grid = "#e5e5e5"
    static let axis = "#555555"
}
