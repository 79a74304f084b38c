import Dispatch
import LabHarness
import Synchronization

/// A completion handler the library hands to the app, and the library's side of the contract
/// "call it exactly once, from any thread, whenever you are ready": an `ExactlyOnce` guard picks
/// the call that counts (later ones are recorded and ignored); the library hops back to its own
/// queue whatever thread calls; and a harness `Watchdog` settles the operation itself after the
/// library's patience without a call, racing a late call through the same guard.
final class PendingHandler<Value: Sendable>: Sendable {
    enum Settlement: Sendable { case called(Value), neverCalled(StallReport) }

    private let name: String, library: ChatLibrary
    private let onSettle: @Sendable (Settlement) -> Void
    private let once = ExactlyOnce(), progress = ProgressCounter(), calls = Atomic<Int>(0)
    private let watchdog = Mutex<Watchdog?>(nil)
    /// Keeps the operation alive until settled: the app may drop the handler, and the watchdog holds it weakly.
    private let keepAlive = Mutex<PendingHandler<Value>?>(nil)

    /// `name` is how steps and diagnostics call it; `onSettle` runs on the library's queue.
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
        library.countHandlerCall()
        let number = calls.add(1, ordering: .relaxed).newValue
        progress.advance()
        let place = ExecutionPlace.current
        library.narrate(number == 1 ? "app calls the \(name)" : "app calls the \(name) again (call \(number))")
        guard once.claim(by: "app") else {
            let when =
                once.winner?.by == "watchdog"
                ? "after the library had given up on it" : "after it had been called already"
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
        settle(
            .neverCalled(report), "library gives up: no call of the \(name) for \(window)",
            Diagnostic(
                kind: .neverCalled,
                message:
                    "the \(name) was not called within \(window) (watchdog: \(report.summary)); the library went on without it"
            ))
    }

    /// On the library's queue: stops the watchdog, says so, settles, and lets go of itself.
    private func settle(_ settlement: Settlement, _ step: String, _ diagnostic: Diagnostic? = nil) {
        library.queue.async { [self] in
            let dog = watchdog.withLock { $0 }
            // stop() waits up to a poll (20 ms): not on the library's queue.
            DispatchQueue.global().async { dog?.stop() }
            library.narrate(step)
            if let diagnostic { library.diagnosticLog.update { $0.append(diagnostic) } }
            onSettle(settlement)
            keepAlive.withLock { $0 = nil }
        }
    }

    private func ordinal(_ n: Int) -> String { [1: "once", 2: "a second time", 3: "a third time"][n] ?? "\(n) times" }
}
