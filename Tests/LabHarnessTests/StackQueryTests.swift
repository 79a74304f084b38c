import LabHarness
import XCTest

/// A snapshot answers "is a thread waiting in X called from Y" only where it named both frames;
/// one whose naming ran out of time for a library names neither the library's frames nor the
/// waits in them, and must not read as "no thread waits there".
final class StackQueryTests: XCTestCase {
    private let named = ThreadStack(
        thread: "worker", tid: 1, state: "S",
        frames: [
            "__futex_abstimed_wait_common64 (in libc.so.6)", "_dispatch_semaphore_wait_slow (in libdispatch.so)",
            "RequestClient.callBlocking(_:) (Callers.swift:43)",
        ])
    private let cutShort = ThreadStack(
        thread: "worker", tid: 2, state: "S",
        frames: ["libc.so.6+0x8a1f2", "libdispatch.so+0x1c3e0", "RequestClient.callBlocking(_:) (Callers.swift:43)"])

    func testASnapshotThatNamedBothFramesCanTell() {
        XCTAssertTrue(
            [named, cutShort].canTell(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking"))
        XCTAssertEqual(
            [named, cutShort].waiting(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking").count, 1
        )
    }

    func testASnapshotWhoseLibraryWasNotNamedCannotTell() {
        XCTAssertFalse([cutShort].canTell(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking"))
        XCTAssertFalse([named].canTell(in: "_dispatch_semaphore_wait", calledFrom: "MainThreadWrapper.semaphore"))
        XCTAssertFalse(
            [ThreadStack]().canTell(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking"))
    }
}
