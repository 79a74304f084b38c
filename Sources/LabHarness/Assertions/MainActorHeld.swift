/// Whether a synchronous wait holds the main actor: it runs inside a task on the main queue, as
/// the body of a `@MainActor` Swift Testing test does (a synchronous one too), or a synchronous
/// closure inside an async `@MainActor` test. The main queue cannot be drained again from inside
/// the job that waits, so no main-actor task and no main-queue block runs until the wait ends:
/// an object one of them was to release stays alive for the whole wait, whatever the code does.
///
/// The compiler picks the release assertions' async forms in async code (their synchronous
/// forms are `noasync`), but not inside a synchronous closure there, nor in a synchronous test
/// that the framework runs on the main actor: a failure of a synchronous wait there says so,
/// rather than leave the code blamed alone. Not a verdict of its own: a real leak there fails
/// as before.
enum MainActorHeld {
    /// True inside a task on the main queue. A synchronous XCTest test on the main thread is in
    /// no task: its waits drain the main queue (`MainQueueFriendlyWait`), and this is false.
    static var now: Bool {
        withUnsafeCurrentTask { $0 != nil } && MainQueueMark.isOnMainQueue
    }

    /// The note a synchronous wait's failure carries when it held the main actor; else "".
    /// `what`: what a main-actor task or main-queue block was to do (`release the object`).
    static func noteIfHeld(_ what: String = "release the object") -> String {
        guard now else { return "" }
        return " (note: this synchronous wait ran on the main actor, inside a task, and held it for the whole"
            + " wait: no main-actor task or main-queue block could run meanwhile, so one that was to \(what)"
            + " could not; call the assertion with `await` from an async test, whose form suspends instead)"
    }
}
