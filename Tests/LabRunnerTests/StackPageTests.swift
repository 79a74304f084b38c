import Foundation
import LabHarness
import LabRunner
import XCTest

/// `lab report` shows a deadlocked variant's stacks under it: the grouped view, then the frames.
final class StackPageTests: XCTestCase {
    func testTheReportPageShowsTheGroupedStacksUnderTheVariant() throws {
        var document = sampleDocument()
        let frames = ["sem_wait (in libc.so.6)", "Box<Int>.waitForReply() (Box.swift:9)", "App.caller() (App.swift:3)"]
        let index = try XCTUnwrap(document.experiments.firstIndex { $0.experiment == "runloop" })
        let variant = try XCTUnwrap(document.experiments[index].variants.firstIndex { $0.name == "global-queue" })
        document.experiments[index].variants[variant].stacks = [
            ThreadStack(thread: "worker", tid: 11, state: "S", frames: frames),
            ThreadStack(thread: "worker", tid: 12, state: "S", frames: frames),
        ]
        let directory = try temporaryDirectory("stacks-page")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")
        try document.jsonData().write(to: file)
        let written = try ReportCommand.run(
            from: file.path, to: directory.appendingPathComponent("out").path, catalog: LabCatalog([]))

        let html = try String(contentsOf: written.index, encoding: .utf8)
        XCTAssertTrue(html.contains("Where the threads of <code>global-queue</code> were"), html)
        XCTAssertTrue(
            html.contains("2 threads (worker): in sem_wait ← Box&lt;Int&gt;.waitForReply (Box.swift:9) ← App.caller"))
        XCTAssertTrue(
            html.contains("<li><code>Box&lt;Int&gt;.waitForReply() (Box.swift:9)</code></li>"), "every frame, escaped")
        XCTAssertFalse(html.contains("Box<Int>"))
        let markdown = try String(contentsOf: written.markdown, encoding: .utf8)
        // results.md carries no raw HTML and no live Markdown punctuation from the frames.
        XCTAssertTrue(
            markdown.contains(
                #"- 2 threads (worker): in sem\_wait ← Box&lt;Int&gt;.waitForReply (Box.swift:9) ← App.caller"#),
            markdown)
        XCTAssertFalse(markdown.contains("Box<Int>"))
    }
}
