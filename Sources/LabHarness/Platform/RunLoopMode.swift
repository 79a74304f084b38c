// One of the two listed exceptions to "no platform branch in Swift" (README, "On a Mac"):
// CoreFoundation's default run-loop mode is a Swift-only spelling difference (Darwin imports it
// as the `CFRunLoopMode` wrapper, Linux as a bare `CFString`), and the C shim cannot hand it
// over because CoreFoundation's headers are not part of it. The branch holds one expression.
import CoreFoundation

extension HostPlatform {
    /// The run loop's default mode as `CFRunLoopPerformBlock` takes it.
    public static var defaultRunLoopMode: CFTypeRef {
        #if canImport(Darwin)
        CFRunLoopMode.defaultMode.rawValue
        #else
        kCFRunLoopDefaultMode
        #endif
    }
}
