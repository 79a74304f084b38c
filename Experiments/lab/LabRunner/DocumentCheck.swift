import LabHarness

/// Every number in a results file is checked before anything converts or draws it. The lab
/// writes durations, counts and latencies; none comes near 10^12 (about 30 000 years in seconds),
/// so anything larger, or not finite, is a damaged or hand-made file and is refused with its
/// key and value rather than drawn as nonsense or trapped on.
enum DocumentCheck {
    /// The largest magnitude any number in a results file may have.
    static let limit = 1e12

    struct OutOfRange: Error, CustomStringConvertible {
        var place: String
        var value: Double
        var description: String {
            "\(place) = \(Format.number(value)) is out of range (a finite number from -1e12 to 1e12)"
        }
    }

    static func validate(_ document: LabDocument) throws {
        try check(document.elapsedSeconds, "elapsed_s")
        for report in document.experiments {
            let experiment = "experiment '\(UsageError.echo(report.experiment))'"
            for (key, value) in report.parameters {
                if let number = value.number { try check(number, "\(experiment): parameter '\(UsageError.echo(key))'") }
            }
            for variant in report.variants {
                let place = "\(experiment), variant '\(UsageError.echo(variant.name))'"
                for metric in variant.metrics {
                    try check(metric.value, "\(place): metric '\(UsageError.echo(metric.name))'")
                }
                for (key, points) in variant.series ?? [:] {
                    for (index, point) in points.enumerated() {
                        for number in point {
                            try check(number, "\(place): series '\(UsageError.echo(key))' point \(index)")
                        }
                    }
                }
                for (index, event) in (variant.events ?? []).enumerated() {
                    try check(event.t, "\(place): event \(index) time 't'")
                }
            }
        }
    }

    private static func check(_ value: Double, _ place: @autoclosure () -> String) throws {
        guard value.isFinite, abs(value) <= limit else { throw OutOfRange(place: place(), value: value) }
    }
}
