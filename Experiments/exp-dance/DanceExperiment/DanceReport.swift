import LabHarness

/// The terminal report's dance-specific parts: what each closure captured, whether its owner
/// outlived its scope, and release timelines drawn from the variants' events.
enum DanceReport {
    static let columns: [ReportColumn] = [
        ReportColumn("captured") { CaptureProbe.delta($0.metrics)?.description ?? "—" },
        ReportColumn("alive after scope") { v in
            switch v[DanceMetric.aliveAtScopeExit] { case 1?: "yes"; case 0?: "no"; default: "?" }
        },
        ReportColumn("released") { v in
            switch v[DanceMetric.released] {
            case 1?: "after " + (v[DanceMetric.releaseAfterScopeS].map(Format.seconds) ?? "?")
            case 0?: "no (\(v[DanceMetric.graceS].map(Format.seconds) ?? "?") grace)"
            default: "—"
            }
        },
    ]

    /// "released 9 µs after its scope ended" or "still alive 500 ms after its scope ended".
    static func aliveOrReleased(_ metrics: Metrics) -> String {
        switch metrics[DanceMetric.released] {
        case 1?: "released \(metrics[DanceMetric.releaseAfterScopeS].map(Format.seconds) ?? "?") after its scope ended"
        case 0?: "still alive \(metrics[DanceMetric.graceS].map(Format.seconds) ?? "?") after its scope ended"
        default: "release not measured"
        }
    }

    static func sections(_ report: ExperimentReport) -> [String] {
        [releaseBars(report), EventSection.lines(report)]
    }

    /// One bar per variant: how long the owner outlived its scope, on a labelled scale taken from
    /// the longest time (µs read as µs), in what the report's width leaves, at most `width` columns.
    static func releaseBars(_ report: ExperimentReport, width: Int = 40, columns: Int = ReportWidth.current) -> String {
        let rows = report.variants.compactMap { v -> (String, Double, String)? in
            switch v.metrics[DanceMetric.released] {
            case 1?:
                guard let delay = v.metrics[DanceMetric.releaseAfterScopeS] else { return nil }
                let tail = v.outcome == .crashed ? ", then the trap" : ""
                return (v.name, delay, "D " + Format.seconds(delay) + tail)
            case 0?:
                guard let grace = v.metrics[DanceMetric.graceS] else { return nil }
                let broken = v.metrics[DanceMetric.releasedAfterBreak] == 1 ? "; released once the stored closure was cleared" : ""
                return (v.name, grace, "… still alive after \(Format.seconds(grace)): leaked\(broken)")
            default:
                return nil
            }
        }
        guard !rows.isEmpty else { return "" }
        let scale = TimeScale(longest: rows.map(\.1).max() ?? 0)
        let nameWidth = rows.map(\.0.count).max() ?? 0
        // Room for the bar: what is left beside the name and a short note, 10 columns at least.
        let barWidth = max(10, min(width, columns - nameWidth - 4 - 14))
        var lines = ["owner alive after its scope ended (█ alive, D deinit; scale 0 to \(scale.label(scale.end)))"]
        for (name, seconds, note) in rows {
            let bar = String(repeating: "█", count: Int((scale.fraction(seconds) * Double(barWidth)).rounded()))
            lines.append("  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + " │" + bar + note)
        }
        let left = "0", right = scale.label(scale.end)
        lines.append(String(repeating: " ", count: nameWidth + 3) + "└" + String(repeating: "─", count: max(barWidth - 1, 0)) + "┘")
        lines.append(String(repeating: " ", count: nameWidth + 3) + left
                     + String(repeating: " ", count: max(1, barWidth + 1 - left.count - right.count)) + right)
        return lines.joined(separator: "\n")
    }
}
