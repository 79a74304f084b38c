import Foundation
import XCTest

/// The run sheet's live edits (parts 3 and 4) are patches in `notes/patches/`, which an
/// instructor applies in one command (`git apply notes/patches/NAME.patch`) and undoes with
/// `git apply -R`. Each must still apply cleanly to the current tree, and the run sheet must
/// name each one; when the code a patch touches changes, this test says which patch to remake.
final class WorkshopPatchTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func patches() throws -> [String] {
        let folder = Self.root.appendingPathComponent("notes/patches")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".patch") }.sorted().map { "notes/patches/" + $0 }
    }

    func testEachPatchAppliesCleanlyToTheCurrentTree() throws {
        let found = try patches()
        XCTAssertGreaterThanOrEqual(found.count, 2, "the run sheet's parts 3 and 4 each apply a patch")
        for patch in found {
            let git = Process()
            git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            git.arguments = ["git", "apply", "--check", patch]
            git.currentDirectoryURL = Self.root
            let errors = Pipe()
            git.standardError = errors
            git.standardOutput = FileHandle.nullDevice
            try git.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            git.waitUntilExit()
            XCTAssertEqual(
                git.terminationStatus, 0,
                "\(patch) no longer applies to the current tree (`git apply --check \(patch)`): \(message)Remake it: make the change answers.md describes, then `git diff -- Experiments/ > \(patch)` and `git checkout -- Experiments/`."
            )
        }
    }

    func testTheRunSheetAppliesAndUndoesEachPatch() throws {
        let sheet = try String(contentsOf: Self.root.appendingPathComponent("notes/workshop.md"), encoding: .utf8)
        for patch in try patches() {
            XCTAssertTrue(sheet.contains("git apply \(patch)"), "notes/workshop.md does not apply \(patch)")
            XCTAssertTrue(sheet.contains("git apply -R \(patch)"), "notes/workshop.md does not undo \(patch)")
        }
    }
}
