import Foundation
import LabFixtureKit
import LabHarness
import LabHarnessXCTest
import LabRunner

/// A catalog holding only the fixture experiment, launched through the `lab-fixture` program,
/// with `extra` arguments put before the runner's own (`--json`, `--quick`).
func fixtureSetup(extra: [String] = []) throws -> (LabCatalog, Launcher) {
    let catalog = LabCatalog([LabEntry(command: "fixture", definition: fixtureExperiment)])
    let launcher = Launcher(executable: try BuiltProducts.executable("lab-fixture")) { _ in extra }
    return (catalog, launcher)
}

/// A fresh empty directory under the temporary directory.
func temporaryDirectory(_ name: String) throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
        "lab-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// This test process and the processes above it: never a leftover of what a test started, even
/// when one of them is a lab program (the suite run under `lab watch -- swift test`, whose keeper
/// is `lab watch-keeper`).
func thisProcessAndItsAncestors() -> Set<Int32> {
    let parents = Dictionary(ProcessTable.all().map { ($0.pid, $0.parent) }, uniquingKeysWith: { first, _ in first })
    var result: Set<Int32> = []
    var pid = getpid()
    while pid > 1, result.insert(pid).inserted { pid = parents[pid] ?? 0 }
    return result
}

/// Processes whose parent is this test process: the runner must leave none behind.
func childrenOfThisProcess() -> [Int32] {
    ProcessTable.children().map(\.pid)
}

/// Canned reports with every kind of chart data, for the page and chart tests.
func sampleDocument(complete: Bool = true) -> LabDocument {
    func variant(
        _ name: String, _ outcome: Outcome, series: [String: [[Double]]]? = nil, events: [TimedEvent]? = nil,
        metrics: Metrics = [:]
    ) -> VariantReport {
        VariantReport(name: name, outcome: outcome, grade: .expected, metrics: metrics, series: series, events: events)
    }
    let platform = PlatformInfo(os: "linux", cpus: 2, swift: "6.3.1")
    let pool = ExperimentReport(
        experiment: "pool", platform: platform, parameters: ["tasks": .number(400)],
        variants: [
            variant(
                "global-flood", .completed,
                series: [
                    "threads": (0..<20).map { [Double($0), Double(3 + $0)] },
                    "probe_ms": (0..<20).map { [Double($0), Double($0 * 40)] },
                ]),
            variant(
                "gated", .completed,
                series: [
                    "threads": (0..<20).map { [Double($0), 4] },
                    "probe_ms": (0..<20).map { [Double($0), 0.05] },
                ]),
        ],
        findings: [
            FindingReport(
                id: "pool.global-queue-is-bounded", applicable: true, reproduced: true, summary: "grew 1.0 thread/s")
        ])
    let runloop = ExperimentReport(
        experiment: "runloop", platform: platform, parameters: ["tasks": .number(30), "timeout_s": .number(0.2)],
        variants: [
            variant("global-queue", .deadlock, series: ["lateness_ms": []], metrics: ["total": 30, "completed": 0]),
            variant(
                "dedicated-thread", .completed,
                series: ["lateness_ms": (0..<30).map { [Double($0) * 0.01, 0.2 + Double($0) * 0.05] }],
                metrics: ["total": 30, "completed": 30]),
            variant(
                "weird <name> & \"quotes\"", .completed, series: ["lateness_ms": [[0, 9000]]], metrics: ["total": 2]),
        ],
        findings: [
            FindingReport(
                id: "runloop.global-queue-misses-timeouts", applicable: true, reproduced: true, summary: "0 of 30"),
            FindingReport(
                id: "runloop.linux-timer-init-fires-immediately", applicable: false, reproduced: false, summary: "n/a"),
        ])
    let dance = ExperimentReport(
        experiment: "dance", platform: platform, parameters: [:],
        variants: [
            variant("strong-capture", .leaked, events: [TimedEvent(t: 0, label: "scope-end")]),
            variant(
                "heap-stack-delayed", .completed,
                events: [
                    TimedEvent(t: 0, label: "completion2"), TimedEvent(t: 0.001, label: "scope-end"),
                    TimedEvent(t: 2, label: "completion1"), TimedEvent(t: 2.0001, label: "deinit"),
                ]),
        ],
        findings: [
            FindingReport(
                id: "dance.strong-capture-leaks", applicable: true, reproduced: false, summary: "released after 0 ms")
        ])
    return LabDocument(
        platform: platform, complete: complete, quick: true, elapsedSeconds: 12.5,
        experiments: [pool, runloop, dance],
        failures: complete
            ? [] : [ExperimentFailure(experiment: "callback", outcome: "interrupted", evidence: "Ctrl-C")])
}
