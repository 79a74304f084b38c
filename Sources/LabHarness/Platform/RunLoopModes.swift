import CoreFoundation

/// Run-loop mode constants in the form CoreFoundation's C calls take them.
public enum RunLoopModes {
    /// The default mode as `CFRunLoopPerformBlock` takes it (a plain `CFString` on Linux, a
    /// wrapped one on Darwin).
    #if canImport(Darwin)
    public static var defaultMode: CFTypeRef { CFRunLoopMode.defaultMode.rawValue }
    #else
    public static var defaultMode: CFTypeRef { kCFRunLoopDefaultMode }
    #endif
}
