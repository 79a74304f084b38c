import LabHarness

/// The stacks of a deadlocked or stalled variant on the report page: the grouped view (one
/// line per set of threads with the same stack), then every group's full frames, folded away.
enum StackPageSection {
    static func html(_ report: ExperimentReport) -> [String] {
        var html: [String] = []
        for variant in report.variants {
            guard let stacks = variant.stacks, !stacks.isEmpty else { continue }
            html.append("<h3>Where the threads of <code>\(escape(variant.name))</code> were</h3><ul class=\"stacks\">")
            for group in StackGroup.fold(stacks) {
                let frames = group.frames.map { "<li><code>\(escape($0))</code></li>" }.joined()
                html.append(
                    "<li>\(escape(group.summary()))<details><summary>frames, innermost first</summary><ol>\(frames)</ol></details></li>"
                )
            }
            html.append("</ul>")
        }
        return html
    }

    static func markdown(_ report: ExperimentReport) -> [String] {
        var md: [String] = []
        for variant in report.variants {
            guard let stacks = variant.stacks, !stacks.isEmpty else { continue }
            md.append("")
            md.append("Where the threads of \(MarkdownPage.code(variant.name)) were (innermost frame first):")
            md.append("")
            for group in StackGroup.fold(stacks) {
                md.append("- " + MarkdownPage.text(group.summary()))
            }
        }
        return md
    }
}
