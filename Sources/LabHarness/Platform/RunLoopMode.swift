// CoreFoundation's default run-loop mode, with no platform branch. Swift imports
// CoreFoundation's own constant differently on each platform (Darwin wraps it in
// `CFRunLoopMode`, Linux leaves a bare `CFString`), and the C shim cannot hand it over because
// CoreFoundation's headers are not part of it. A run loop matches a mode by its name's contents
// (`CFEqual` on the two strings), so a `CFString` made from Foundation's name for the mode,
// "kCFRunLoopDefaultMode" on both, is the same mode. (Measured here: a block performed in it ran
// in `RunLoop.run(mode: .default, ...)`, and one performed in another name did not.)
import CoreFoundation
import Foundation

extension HostPlatform {
    /// The run loop's default mode as `CFRunLoopPerformBlock` takes it.
    static var defaultRunLoopMode: CFTypeRef { DefaultRunLoopMode.shared.name }
}

/// Made once: the shared run-loop thread is handed a block per request. A `CFString` is
/// immutable, so sharing it between threads is safe.
private struct DefaultRunLoopMode: @unchecked Sendable {
    let name: CFTypeRef
    static let shared = DefaultRunLoopMode(
        name: CFStringCreateWithCString(nil, RunLoop.Mode.default.rawValue, CFStringBuiltInEncodings.UTF8.rawValue))
}
