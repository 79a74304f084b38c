// Not part of any target: DarwinStrictnessTests adds it, with AppleAsyncMarkings.swift, to the
// modules that import XCTest. Apple's XCTest marks the synchronous expectation waits
// unavailable from asynchronous contexts; swift-corelibs-xctest on Linux does not.
import XCTest

extension XCTestCase {
    @available(*, noasync, message: "Apple's XCTest: use await fulfillment(of:timeout:enforceOrder:) instead")
    func wait(for expectations: [XCTestExpectation], timeout seconds: TimeInterval) { fatalError() }
    @available(*, noasync, message: "Apple's XCTest: use await fulfillment(of:timeout:enforceOrder:) instead")
    func wait(for expectations: [XCTestExpectation], timeout seconds: TimeInterval, enforceOrder: Bool) { fatalError() }
}
