import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// The findings hold in the release build as they do in the debug build the other tests use:
/// `lab all --quick` from `.build/release` (which `.ci/run` builds before `swift test`) must
/// reproduce every finding, each with its mechanism, and end no variant forbidden. The optimizer
/// inlines small functions, and a finding whose evidence looked for an inlined frame by name was
/// "not judged" there (three runloop findings were, in every release run, before their frames
/// were kept with `@inline(never)`; `EvidenceFrameTests` guards that rule).
///
/// Without a release build, or with one older than the sources, the test skips and says so;
/// with `LAB_REQUIRE_RELEASE=1` it fails instead. `.ci/run` runs the release `lab all --quick
/// --json` itself (failing on any exit but 0) and hands its document over in
/// `LAB_RELEASE_RESULTS`, which the test then judges instead of running the lab again.
final class ReleaseBuildFindingsTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testEveryFindingReproducesInTheReleaseBuild() throws {
        // .ci/run has just run it (and failed on any exit but 0): judge that run's document.
        if let given = ProcessInfo.processInfo.environment["LAB_RELEASE_RESULTS"] {
            let document = try LabDocument.read(Data(contentsOf: URL(fileURLWithPath: given)))
            XCTAssertTrue(document.complete, "\(document.failures)")
            let problems = Self.problems(in: document).all
            XCTAssertEqual(
                problems, [], "release build, lab all --quick (\(given)):\n" + problems.joined(separator: "\n"))
            return
        }
        let lab = try Self.releaseLab()
        var attempt = 0
        while true {
            attempt += 1
            let directory = try temporaryDirectory("release-all")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("results.json")
            let run = try ChildProcess.run(
                ChildSpec(executable: lab, arguments: ["all", "--quick", "--json", file.path], budget: 240))
            let document = try LabDocument.read(Data(contentsOf: file))
            XCTAssertTrue(document.complete, "\(document.failures)")
            let (problems, machine, _) = Self.problems(in: document)
            XCTAssertEqual(problems, [], "release build, lab all --quick:\n" + problems.joined(separator: "\n"))
            if !problems.isEmpty || machine.isEmpty {
                XCTAssertEqual(run.exitCode, problems.isEmpty ? 0 : 1, run.stderr.suffix(2000).description)
                return
            }
            // A trial the machine broke judges nothing: once more, then say so.
            if attempt == 2 {
                throw XCTSkip(
                    "the machine broke trials twice, so these were not judged:\n" + machine.joined(separator: "\n"))
            }
        }
    }

    /// Each finding not reproduced and each forbidden outcome, named; apart, the findings not
    /// judged because the machine broke a trial of their experiment.
    static func problems(in document: LabDocument) -> (problems: [String], machine: [String], all: [String]) {
        var problems: [String] = [], machine: [String] = []
        for report in document.experiments {
            let broken = report.machineVariants.map { "\($0.name) ended \($0.outcome)" }
            for finding in report.findings where finding.applicable && !finding.reproduced {
                let line = "\(finding.id): \(finding.notJudged ? "not judged" : "not reproduced"): \(finding.summary)"
                if finding.notJudged && !broken.isEmpty {
                    machine.append("\(line) [the machine: \(broken.joined(separator: ", "))]")
                } else {
                    problems.append(line)
                }
            }
            problems += report.forbiddenVariants.map {
                "\(report.experiment) \($0.name): forbidden outcome \($0.outcome): \($0.evidence ?? "")"
            }
        }
        return (problems, machine, problems + machine)
    }

    /// `.build/release/lab`, built from these sources.
    static func releaseLab() throws -> String {
        let required = ProcessInfo.processInfo.environment["LAB_REQUIRE_RELEASE"] == "1"
        func missing(_ why: String) -> Error {
            required
                ? ReleaseBuildMissing(description: why)
                : XCTSkip(why + "; `swift build -c release` first (.ci/run does)")
        }
        let lab = root.appendingPathComponent(".build/release/lab").resolvingSymlinksInPath().path
        guard FileManager.default.isExecutableFile(atPath: lab) else {
            throw missing("no release build of lab at .build/release/lab")
        }
        let built = (try FileManager.default.attributesOfItem(atPath: lab)[.modificationDate] as? Date) ?? .distantPast
        let newest =
            ["Sources", "Experiments"].compactMap { folder -> Date? in
                let walk = FileManager.default.enumerator(
                    at: root.appendingPathComponent(folder), includingPropertiesForKeys: [.contentModificationDateKey])
                return walk?.compactMap {
                    ($0 as? URL).flatMap {
                        try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
                    }
                }.max()
            }.max() ?? .distantPast
        guard built >= newest else { throw missing("the release build of lab is older than the sources") }
        return lab
    }

    struct ReleaseBuildMissing: Error, CustomStringConvertible { var description: String }
}
