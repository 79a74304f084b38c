// Not part of any target: DarwinStrictnessTests compiles it into each module it checks, so that
// this machine's compiler rejects what Apple's SDK rejects. Apple's Dispatch overlay and
// Foundation mark these calls unavailable from asynchronous contexts (`noasync`); an error in
// the Swift 6 language mode there, where the open-source libdispatch and Foundation built for
// Linux mark nothing. A declaration of a module shadows the same member of a module it imports,
// so inside the module checked these copies, not Linux's, are the ones a call finds. Their
// bodies never run: the module is only type-checked.
import Dispatch
import Foundation

extension DispatchSemaphore {
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait() { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError() }
}

extension DispatchGroup {
    @available(*, noasync, message: "Apple's Dispatch: use a TaskGroup instead")
    func wait() { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: use a TaskGroup instead")
    func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: use a TaskGroup instead")
    func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError() }
}

extension DispatchWorkItem {
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait() { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait(timeout: DispatchTime) -> DispatchTimeoutResult { fatalError() }
    @available(*, noasync, message: "Apple's Dispatch: await a Task handle instead")
    func wait(wallTimeout: DispatchWallTime) -> DispatchTimeoutResult { fatalError() }
}

extension Thread {
    @available(
        *, noasync, message: "Apple's Foundation: work intended for the main actor should be marked with @MainActor"
    )
    class var isMainThread: Bool { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: Thread.current cannot be used from async contexts")
    class var current: Thread { fatalError() }
}

extension NSLock {
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func lock() { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func unlock() { fatalError() }
}

extension NSRecursiveLock {
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func lock() { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func unlock() { fatalError() }
}

extension NSCondition {
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func lock() { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func unlock() { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func wait() { fatalError() }
    @available(*, noasync, message: "Apple's Foundation: use async-safe scoped locking instead")
    func wait(until limit: Date) -> Bool { fatalError() }
}
