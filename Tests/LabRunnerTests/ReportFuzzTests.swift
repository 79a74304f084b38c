import Foundation
import LabHarness
import LabRunner
import XCTest

/// A seeded generator of schema-1 documents built to break the report reader: extreme and
/// tiny numbers, hostile strings, odd shapes. Every document is either rendered or refused with
/// exit status 64; nothing traps (a trap here would end the whole test run), and the whole
/// batch finishes in seconds.
final class ReportFuzzTests: XCTestCase {
    /// SplitMix64: the same documents on every run, so a failure can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

        /// Mostly ordinary values (so that charts get drawn), one in eight from the edges.
        mutating func number() -> Double {
            if int(0...7) > 0 { return pick([0, 1, 0.25, 3, 42, 0.001, 999.5, Double(int(0...100_000)) / 7]) }
            return pick([
                0, -0.0, 1, -1, 0.5, 1e-300, Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, 1e15, 9.2e18,
                1e19, 1e25, 1e30, 1e300, -1e300,
                Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 123.456, Double(int(0...100_000)) / 7,
            ])
        }

        mutating func string() -> String { pick(Generator.strings) }

        /// Made once: building the 100,000-character one on every call was three quarters of
        /// the test's time.
        static let strings = [
            "ok", "", "../", "../../../x", "/", "/etc/passwd", "a/b", "\u{0}", "line\nbreak", "tab\there", "<b>x</b>",
            "<script>alert(1)</script>", "| cell |", "`code`", "**bold** _em_ [link](http://x)", "&amp;", "\"'",
            "é ü 漢字 🙂", "\u{202E}reversed", "index.html", ".", "..", String(repeating: "a", count: 100_000),
            String(repeating: "/..", count: 300),
        ]
    }

    func document(_ g: inout Generator) -> LabDocument {
        func series() -> [[Double]] {
            (0..<g.int(0...12)).map { _ in (0..<g.int(0...3)).map { _ in g.number() } }
        }
        let experiments = (0..<g.int(0...3)).map { _ -> ExperimentReport in
            let variants = (0..<g.int(0...4)).map { _ -> VariantReport in
                var metrics = Metrics()
                for key in ["total", "completed", "wall_s", g.string()] where g.int(0...2) > 0 {
                    metrics[key] = g.number()
                }
                var seriesMap: [String: [[Double]]] = [:]
                for key in ["threads", "probe_ms", "lateness_ms", g.string()] where g.int(0...1) > 0 {
                    seriesMap[key] = series()
                }
                let events = (0..<g.int(0...5)).map { _ in
                    TimedEvent(t: g.number(), label: g.string(), thread: g.int(0...1) == 0 ? nil : g.string())
                }
                return VariantReport(
                    name: g.string(),
                    outcome: g.pick([Outcome.completed, .deadlock, .leaked, .crashed, .stalled, Outcome(g.string())]),
                    grade: g.pick([nil, .expected, .interesting, .forbidden]),
                    metrics: metrics, evidence: g.string(), series: seriesMap, events: events)
            }
            let findings = (0..<g.int(0...3)).map { _ in
                FindingReport(
                    id: g.string(), applicable: g.int(0...1) == 0, reproduced: g.int(0...1) == 0, summary: g.string())
            }
            return ExperimentReport(
                experiment: g.pick(["pool", "runloop", "dance", "callback", g.string()]),
                platform: PlatformInfo(os: g.string(), cpus: g.int(0...1) == 0 ? 2 : Int.max, swift: g.string()),
                parameters: ["tasks": .number(g.number()), g.string(): .text(g.string()), "quick": .flag(true)],
                variants: variants, findings: findings)
        }
        var document = LabDocument(
            platform: PlatformInfo(os: g.string(), cpus: g.int(-1...4), swift: g.string()),
            complete: g.int(0...1) == 0, quick: true, elapsedSeconds: 0, experiments: experiments,
            failures: (0..<g.int(0...2)).map { _ in
                ExperimentFailure(experiment: g.string(), outcome: g.string(), evidence: g.string())
            })
        document.elapsedSeconds = g.number()
        return document
    }

    func testGeneratedDocumentsAreRenderedOrRefusedNeverATrap() throws {
        let directory = try temporaryDirectory("fuzz")
        defer { try? FileManager.default.removeItem(at: directory) }
        var g = Generator(state: 0x5EED)
        var rendered = 0, refused = 0
        let start = MonotonicClock.now()
        for index in 0..<40 {
            let document = document(&g)
            let file = directory.appendingPathComponent("doc.json")
            let data: Data
            do { data = try ExperimentReport.encoder().encode(document) } catch {
                XCTFail("document \(index) cannot be encoded: \(error)")
                continue
            }
            try data.write(to: file)
            let out = directory.appendingPathComponent("out-\(index % 3)")
            do {
                let written = try ReportCommand.run(from: file.path, to: out.path, catalog: LabCatalog.standard)
                rendered += 1
                for url in [written.index, written.markdown] + written.charts {
                    XCTAssertTrue(
                        url.standardizedFileURL.path.hasPrefix(out.standardizedFileURL.path + "/"),
                        "\(index): \(url.path)")
                }
            } catch let failure as ReportCommand.Failure {
                XCTAssertEqual(failure.status, 64, "document \(index): \(failure.message)")
                XCTAssertFalse(failure.message.contains("\n"), "document \(index): one line")
                XCTAssertLessThanOrEqual(failure.message.count, 400, "document \(index): a short line")
                refused += 1
            }
        }
        let everything = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(
            Set(everything).subtracting(["doc.json", "out-0", "out-1", "out-2"]), [], "nothing written elsewhere")
        XCTAssertGreaterThan(rendered, 5, "the generator must also make documents that can be drawn")
        XCTAssertGreaterThan(refused, 5, "and documents that must be refused")
        print("fuzz: \(rendered) rendered, \(refused) refused in \(Format.seconds(MonotonicClock.now() - start))")
    }
}
