import LabHarness

/// The terminal report's dance-specific parts: what each closure captured, whether its owner
/// outlived its scope, and release timelines drawn from the variants' events.
enum DanceReport {
    static let columns: [ReportColumn] = [
        ReportColumn("captured") { CaptureProbe.delta($0.metrics)?.description ?? "—" },
        ReportColumn("alive after scope") { v in
            switch v[DanceMetric.aliveAtScopeExit] {
            case 1?: "yes";
            case 0?: "no";
            default: "?"
            }
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
