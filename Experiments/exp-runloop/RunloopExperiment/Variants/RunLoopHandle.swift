import CoreFoundation
import Foundation

/// A `CFRunLoop` reference that may cross threads: `CFRunLoopStop`, `CFRunLoopWakeUp` and
/// `RunLoop.perform(inModes:block:)` (`CFRunLoopPerformBlock`) are safe to call from any thread.
struct RunLoopHandle: @unchecked Sendable {
    let cf: CFRunLoop, runLoop: RunLoop

    static var current: RunLoopHandle { RunLoopHandle(cf: CFRunLoopGetCurrent(), runLoop: .current) }
}
