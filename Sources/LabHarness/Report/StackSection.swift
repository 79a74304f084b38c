/// The grouped stacks under the variant table of the terminal report: for each variant that
/// carries stacks, one line per set of threads with the same stack, wrapped to the terminal.
enum StackSection {
    /// At most this many groups per variant; the rest are counted.
    static let groupLimit = 4

    static func lines(_ report: ExperimentReport, style: Style, width: Int = Terminal.width(fd: 1)) -> [String] {
        var lines: [String] = []
        for variant in report.variants {
            guard let stacks = variant.stacks, !stacks.isEmpty else { continue }
            let groups = StackGroup.fold(stacks)
            lines.append("")
            lines += TextWrap.wrap(
                style.bold("where the threads of \(variant.name) were") + style.dim(" (--json: stacks)"), width: width)
            for group in groups.prefix(groupLimit) {
                lines.append(contentsOf: wrap(group.summary(), width: width, first: "  ", indent: "      "))
            }
            if groups.count > groupLimit {
                let rest = groups.dropFirst(groupLimit).reduce(0) { $0 + $1.threads.count }
                lines += TextWrap.wrap(
                    style.dim("  and \(rest) more threads in \(groups.count - groupLimit) other stacks"), width: width)
            }
        }
        return lines
    }

    /// Breaks `text` at spaces so that no line is wider than `width`.
    static func wrap(_ text: String, width: Int, first: String, indent: String) -> [String] {
        var lines: [String] = []
        var current = first
        for word in text.split(separator: " ") {
            let candidate = current == first || current == indent ? current + word : current + " " + word
            if displayWidth(candidate) > width, current != first, current != indent {
                lines.append(current)
                current = indent + word
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
