import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// `lab report` writes a whole site or none: built beside `--out`, swapped in at the end.
final class SiteSwapTests: XCTestCase {
    private func lab(_ arguments: [String], limitFileBlocks: Int? = nil) throws -> ChildRun {
        let lab = try BuiltProducts.executable("lab")
        // `ulimit -f` makes a write past the size fail (EFBIG, SIGXFSZ ignored) as a full disk
        // makes it fail (ENOSPC): a real failure part way through the site.
        let prefix = limitFileBlocks.map { "trap '' XFSZ; ulimit -f \($0) || exit 99; " } ?? ""
        return try ChildProcess.run(
            ChildSpec(
                executable: "/bin/sh", arguments: ["-c", prefix + "exec \"$0\" \"$@\"", lab] + arguments,
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: 60))
    }

    private func files(_ folder: URL) -> [String: Data] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        var result: [String: Data] = [:]
        for name in names {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                result[name] = data
            }
        }
        return result
    }

    func testAReRunLeavesNoChartOfTheRunBefore() throws {
        let directory = try temporaryDirectory("swap")
        defer { try? FileManager.default.removeItem(at: directory) }
        let full = directory.appendingPathComponent("full.json"), small = directory.appendingPathComponent("small.json")
        try sampleDocument().jsonData().write(to: full)
        var one = sampleDocument()
        one.experiments = [one.experiments[0]]
        try one.jsonData().write(to: small)
        let site = directory.appendingPathComponent("site")
        XCTAssertEqual(try lab(["report", "--from", full.path, "--out", site.path]).exitCode, 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("charts").path)
        XCTAssertEqual(try lab(["report", "--from", small.path, "--out", site.path]).exitCode, 0)
        let after = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("charts").path)
        XCTAssertLessThan(after.count, before.count, "the smaller run draws fewer charts")
        XCTAssertTrue(after.allSatisfy { $0.hasPrefix("pool") }, "only the second run's charts: \(after)")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
            ["full.json", "site", "small.json"],
            "no building folder left beside the site")
    }

    func testAFailurePartWayKeepsTheOldSiteWhole() throws {
        let directory = try temporaryDirectory("swap-fail")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("results.json")
        try sampleDocument().jsonData().write(to: input)
        let site = directory.appendingPathComponent("site")
        XCTAssertEqual(try lab(["report", "--from", input.path, "--out", site.path]).exitCode, 0)
        let old = files(site)
        // The charts are small, the page is not: 20 blocks lets the first files through.
        let failed = try lab(["report", "--from", input.path, "--out", site.path], limitFileBlocks: 20)
        XCTAssertEqual(failed.exitCode, 74, "a write that failed part way is an I/O error: \(failed.stderr)")
        XCTAssertEqual(failed.stderr.split(separator: "\n").count, 1, failed.stderr)
        XCTAssertTrue(failed.stderr.contains("unchanged"), failed.stderr)
        XCTAssertEqual(files(site), old, "the old site, byte for byte")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["results.json", "site"],
            "the partial build was removed")
    }

    func testAnOutThatIsNotASiteFolderIsNamed() throws {
        let directory = try temporaryDirectory("swap-out")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("results.json")
        try sampleDocument().jsonData().write(to: input)
        let null = try lab(["report", "--from", input.path, "--out", "/dev/null"])
        XCTAssertEqual(null.exitCode, 73)
        XCTAssertEqual(
            null.stderr,
            "lab report: cannot write a site to '/dev/null': it is a device, and --out takes a folder (a new one, or one lab report wrote)\n"
        )
        let here = try lab(["report", "--from", input.path, "--out", directory.path])
        XCTAssertEqual(here.exitCode, 73)
        XCTAssertTrue(here.stderr.contains("holds 'results.json'"), here.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), ["results.json"],
            "nothing swapped away")
    }
}
