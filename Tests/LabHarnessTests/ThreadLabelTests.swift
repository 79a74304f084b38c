import Foundation
import LabHarness
import XCTest

/// Summary lines name libdispatch's pool workers readably; the JSON keeps the kernel's name.
final class ThreadLabelTests: XCTestCase {
    func testTheKernelsFifteenByteCutsOfRootQueueNamesReadAsDispatchWorkers() {
        for name in [
            "oot.default-qos", "-qos.overcommit", "oot.utility-qos", "interactive-qos",
            "com.apple.root.user-initiated-qos", "com.apple.root.background-qos.overcommit",
        ] {
            XCTAssertEqual(ThreadLabel.readable(name), "dispatch worker", name)
        }
    }

    func testOtherNamesAreKeptAsTheKernelGivesThem() {
        // A name that merely ends like a root queue but is not cut at 15 bytes is someone's own.
        for name in [
            "main", "lab.caller", "", "default-qos", "my.default-qos", "com.apple.main-thread", "x-qos.overcommitx",
        ] {
            XCTAssertEqual(ThreadLabel.readable(name), name, name)
        }
    }

    func testTheGroupedSummaryLabelsWorkersButTheJSONKeepsTheKernelName() throws {
        let frames = ["_dispatch_semaphore_wait_slow (in libdispatch.so)", "App.caller() (App.swift:3)"]
        let stacks = [
            ThreadStack(thread: "oot.default-qos", tid: 11, state: "S", frames: frames),
            ThreadStack(thread: "-qos.overcommit", tid: 12, state: "S", frames: frames),
            ThreadStack(thread: "lab.caller", tid: 13, state: "S", frames: frames),
        ]
        let report = VariantReport(name: "v", outcome: .deadlock, stacks: stacks)
        XCTAssertEqual(
            report.stackGroups.map { $0.summary() },
            ["3 threads (dispatch worker, lab.caller): in _dispatch_semaphore_wait_slow ← App.caller (App.swift:3)"])
        let json = String(decoding: try ExperimentReport.encoder().encode(report), as: UTF8.self)
        XCTAssertTrue(json.contains(#""thread":"oot.default-qos""#), json)
        XCTAssertTrue(json.contains(#""thread":"-qos.overcommit""#), json)
    }
}
