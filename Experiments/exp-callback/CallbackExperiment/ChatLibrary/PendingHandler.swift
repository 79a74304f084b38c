import Dispatch
import LabHarness
import Synchronization

/// A completion handler the library hands to the app, and the library's side of the contract
/// "call it exactly once, from any thread, whenever you are ready".
///
/// - *Exactly once*: an `ExactlyOnce` guard decides which call counts. Later calls are
///   recorded as diagnostics and ignored, so the library never renders twice.
/// - *From any thread*: whatever thread calls the handler, the library hops back to its own
///   serial queue before touching its state.
/// - *Whenever you are ready*, within reason: a harness `Watchdog` watches a progress counter
///   that only a call of the handler advances. If nothing happens for the library's patience,
///   the watchdog settles the operation itself, so a forgotten handler becomes a reported stall
///   instead of an operation that waits forever. Watchdog and a late call race through the same
///   guard: whichever comes first settles, the other is refused.
final class PendingHandler<Value: Sendable>: Sendable {
    enum Settlement: Sendable { case called(Value), neverCalled(StallReport) }

    private let name: String, library: ChatLibrary
    private let onSettle: @Sendable (Settlement) -> Void
    private let once = ExactlyOnce(), progress = ProgressCounter()
    private let calls = Atomic<Int>(0)
    private let watchdog = Mutex<Watchdog?>(nil)
    /// The pending operation keeps itself alive until it is settled: the app may drop the
    /// handler (that is the bug being watched for), and the watchdog holds it only weakly.
    private let keepAlive = Mutex<PendingHandler<Value>?>(nil)

    /// `name` is how steps and diagnostics call it (`fetchProfiles handler`); `onSettle` runs
    /// on the library's queue, after the library's patience at the latest.
    init(name: String, library: ChatLibrary, onSettle: @escaping @Sendable (Settlement) -> Void) {
        (self.name, self.library, self.onSettle) = (name, library, onSettle)
    }

    /// Starts the patience clock. Call it just before handing `handler` to the app.
    func start() {
        let dog = Watchdog(counter: progress, window: library.patience) { [weak self] report in self?.stalled(report) }
        watchdog.withLock { $0 = dog }
        keepAlive.withLock { $0 = self }
        dog.start()
    }

    /// The block the app must call exactly once.
    var handler: @Sendable (Value) -> Void { { [self] value in called(value) } }

    private func called(_ value: Value) {
        let number = calls.add(1, ordering: .relaxed).newValue
        progress.advance()
        let place = ExecutionPlace.current
        library.narrate(number == 1 ? "app calls the \(name)" : "app calls the \(name) again (call \(number))")
        guard once.claim(by: "app") else {
            let when = once.winner?.by == "watchdog" ? "after the library had given up on it" : "after it had been called already"
            let message = "the \(name) was called \(ordinal(number)) \(when), from \(place.queue); the call was ignored"
            library.diagnosticLog.update { $0.append(Diagnostic(kind: .calledAgain, message: message)) }
            library.narrate("library ignores call \(number) of the \(name)")
            return
        }
        settle(.called(value), "library is back on its queue with the result")
    }

    /// On the watchdog's thread: nothing called the handler for the whole patience window.
    private func stalled(_ report: StallReport) {
        guard once.claim(by: "watchdog") else { return }
        let window = Format.seconds(report.window)
        settle(.neverCalled(report), "library gives up: no call of the \(name) for \(window)",
               Diagnostic(kind: .neverCalled, message: "the \(name) was not called within \(window) (watchdog: \(report.summary)); the library went on without it"))
    }

    /// On the library's queue: stops the watchdog, says so, settles, and lets go of itself.
    private func settle(_ settlement: Settlement, _ step: String, _ diagnostic: Diagnostic? = nil) {
        library.queue.async { [self] in
            let dog = watchdog.withLock { $0 }
            DispatchQueue.global().async { dog?.stop() }   // stop() waits up to a poll (20 ms): not on the library's queue
            library.narrate(step)
            if let diagnostic { library.diagnosticLog.update { $0.append(diagnostic) } }
            onSettle(settlement)
            keepAlive.withLock { $0 = nil }
        }
    }

    private func ordinal(_ n: Int) -> String {
        switch n { case 1: "once"; case 2: "a second time"; case 3: "a third time"; default: "\(n) times" }
    }
}
