/// The Swift runtime's strong reference count of a native Swift object (`swift_retainCount`,
/// exported by the runtime on every platform; the count it reads is the one `swift_release`
/// tests against zero).
@_silgen_name("swift_retainCount")
private func swiftRetainCount(_ object: UnsafeMutableRawPointer) -> Int

/// How many strong references hold an object the harness tracks weakly: what a leak message
/// says still holds it.
///
/// Reading the count takes a strong reference of its own, and how many temporary retains the
/// reading code makes depends on the optimizer (a debug build made one more than a release
/// build when this was measured). So the same code reads a control object first, which has
/// exactly one known strong reference, and the difference is the answer: an object in a
/// two-object cycle counts 1, one kept by two array entries 2, in debug and release builds
/// alike. Unowned and weak references do not count (they do not keep an object alive).
/// Objective-C objects (NSObject subclasses on Darwin) keep their count elsewhere: not counted.
enum StrongReferences {
    private final class Control {}

    static func count(of box: ReleaseTracker.WeakBox) -> Int? {
        let control = Control()
        let controlBox = ReleaseTracker.WeakBox(control)
        let baseline = withExtendedLifetime(control) { read(controlBox) }
        guard let baseline, let measured = read(box) else { return nil }
        return max(0, measured - (baseline - 1))
    }

    /// The raw count as this code path sees it, temporary retains included.
    @inline(never)
    private static func read(_ box: ReleaseTracker.WeakBox) -> Int? {
        guard let strong = box.object else { return nil }
        return withExtendedLifetime(strong) { swiftRetainCount(Unmanaged.passUnretained(strong).toOpaque()) }
    }
}
