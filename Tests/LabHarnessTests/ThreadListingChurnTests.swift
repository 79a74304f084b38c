import Foundation
@testable import LabHarness
import Synchronization
import XCTest

/// A listing of this process's threads must hold every thread that lives through it, even while
/// older threads exit. On Linux a walk of `/proc/self/task` can stop where it stands on a thread
/// that exits meanwhile (the kernel's `next_tid` gives up at a dead task), and the newest
/// threads, at the end of the list, go unlisted: a thread budget that a body exceeded could
/// then pass.
final class ThreadListingChurnTests: XCTestCase {
    func testEveryLiveThreadIsListedWhileOlderThreadsExit() {
        var short = 0, listings = 0, exited = 0
        let deadline = MonotonicClock.now() + 1.5
        while MonotonicClock.now() < deadline {
            // Older threads, which will exit while the listings run...
            let doomed = ParkedThreads(100, name: "lab.doomed")
            // ...and newer ones, behind them in the kernel's list, alive throughout.
            let listed = ParkedThreads(8, name: "lab.listed")
            let ids = Set(ThreadCensus.threads().filter { $0.name == "lab.listed" }.map { UInt64($0.id) })
            XCTAssertEqual(ids.count, 8)
            let releasing = DispatchSemaphore(value: 0)
            NamedThread.start("lab.releaser") {
                doomed.release()
                releasing.signal()
            }
            while releasing.wait(timeout: .now()) == .timedOut {
                listings += 1
                if !ids.isSubset(of: ThreadRoster.identities()) { short += 1 }
            }
            exited += 100
            listed.release()
        }
        print("thread listings missing a live thread: \(short) of \(listings), while \(exited) older threads exited")
        XCTAssertEqual(short, 0, "\(short) of \(listings) listings missed a live thread")
    }
}
