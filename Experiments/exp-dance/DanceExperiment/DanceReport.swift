import LabHarness

/// The terminal report's dance-specific parts: what each closure captured, whether its owner
/// outlived its scope, and release timelines drawn from the variants' events.
enum DanceReport {
    static let columns: [ReportColumn] = [
        ReportColumn("captured") { captured($0.metrics)?.description ?? "—" },
        ReportColumn("alive after scope") { [1: "yes", 0: "no"][$0[DanceMetric.aliveAtScopeExit] ?? -1] ?? "?" },
        ReportColumn("released") { v in
            switch v[DanceMetric.released] {
            case 1?: "after " + (v[DanceMetric.releaseAfterScopeS].map(Format.seconds) ?? "?")
            case 0?: "no (\(v[DanceMetric.graceS].map(Format.seconds) ?? "?") grace)"
            default: "—"
            }
        },
    ]

    /// The capture probe's change at `moment` (`created`, `stored`, `pending`), read back from a
    /// report's metrics.
    static func captured(_ metrics: Metrics, moment: String = "stored") -> RefCounts? {
        let counts = ["strong", "weak", "unowned"].map { metrics[DanceMetric.capture(moment, $0)] }
        guard let strong = counts[0], let weak = counts[1], let unowned = counts[2] else { return nil }
        return RefCounts(strong: Int(strong), weak: Int(weak), unowned: Int(unowned))
    }

    static func sections(_ report: ExperimentReport) -> [String] {
        [releaseBars(report), EventSection.lines(report)]
    }

    /// One bar per variant on a labelled time scale: how long the owner outlived its scope.
    static func releaseBars(_ report: ExperimentReport, width: Int = 40, columns: Int = ReportWidth.current) -> String {
        let rows = report.variants.compactMap { v -> (name: String, seconds: Seconds, note: String)? in
            switch v.metrics[DanceMetric.released] {
            case 1?:
                v.metrics[DanceMetric.releaseAfterScopeS].map {
                    (v.name, $0, "D " + Format.seconds($0) + (v.outcome == .crashed ? ", then the trap" : ""))
                }
            case 0?:
                v.metrics[DanceMetric.graceS].map {
                    (
                        v.name, $0,
                        "… still alive after \(Format.seconds($0)): leaked"
                            + (v.metrics[DanceMetric.releasedAfterBreak] == 1
                                ? "; released once the stored closure was cleared" : "")
                    )
                }
            default: nil
            }
        }
        return TextChart.timeBars(rows, width: width, columns: columns) {
            "owner alive after its scope ended (█ alive, D deinit; scale 0 to \($0))"
        }
        .joined(separator: "\n")
    }
}
