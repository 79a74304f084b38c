import XCTest
@testable import LabHarness

/// The crashing thread read from the Swift runtime's crash report.
final class CrashReportTests: XCTestCase {
    /// Cut from a real report (a continuation resumed twice), its registers and images left out.
    static let report = """
        _Concurrency/CheckedContinuation.swift:169: Fatal error: SWIFT TASK CONTINUATION MISUSE: fetch() tried to resume its continuation more than once, returning 2!

        *** Program crashed: Illegal instruction at 0x00007f4d460f9361 ***

        Thread 0 "tr":

          0      0x00007f4d44914545 clock_nanosleep@@GLIBC_2.17 + 101 in libc.so.6
          1 [ra] 0x00005606cee09fde main + 189 in tr at /tmp/tr/main.swift:7:8
        ...

        Thread 4 "oot.default-qos" crashed:

          0              0x00007f4d460f9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
          1 [ra]         0x00007f4d4661f8b9 CheckedContinuation.resume(returning:) + 344 in libswift_Concurrency.so
          2 [ra]         0x00005606cee097e1 closure #1 in closure #1 in fetch() + 64 in tr at /tmp/tr/main.swift:5:99
          3 [ra]         0x00005606cee09497 closure #1 in Loader.load(_:) + 54 in tr at /tmp/tr/main.swift:3:124
          4 [ra] [thunk] 0x00005606cee094d8 thunk for @escaping @callee_guaranteed @Sendable () -> () + 39 in tr at //<compiler-generated>
          5 [ra]         0x00007f4d4656f088 _dispatch_continuation_pop + 279 in libdispatch.so
        ...


        Registers:

        rax 0x0000000200000003  8589934595
        """

    func testTheCrashingThreadIsReadWithItsPlaces() {
        XCTAssertEqual(
            CrashReport.crashingThread(in: Self.report),
            "1 thread (crashed: oot.default-qos): in CheckedContinuation.resume ← closure in fetch (main.swift:5) ← closure in Loader.load (main.swift:3)"
        )
    }

    func testOutputWithoutAReportReadsNothing() {
        XCTAssertNil(CrashReport.crashingThread(in: "Fatal error: boom\nIllegal instruction\n"))
    }
}
