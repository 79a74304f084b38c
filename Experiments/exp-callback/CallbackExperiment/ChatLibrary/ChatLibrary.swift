import Dispatch
import LabHarness
import Synchronization

/// A small in-process chat library in the shape of the seed's ChatKit: it renders
/// conversations, knows users only by id, and asks the app for their profiles.
///
/// It uses both kinds of block the seed tells apart:
/// - a **callback**: `open(_:callback:)` runs the app's block when the *library's* work is done.
///   The library executes it, on the library's own queue;
/// - a **completion handler**: with `.completionHandler`, the library hands the app a block and
///   the app runs it when the *app's* work is done: exactly once, from any thread, whenever it
///   is ready. `PendingHandler` is the library's side of that contract.
///
/// All of the library's state changes happen on one serial queue, `chat.library`; how long
/// that queue is held by the app's code is what `heldTimes` records.
public final class ChatLibrary: Sendable {
    /// The app calls this with the profiles, once, from any thread.
    public typealias FetchProfilesCompletionHandler = @Sendable (_ profiles: [Profile]) -> Void
    /// The app's provider in completion-handler style (ChatKit's `setFetchProfilesBlock:`).
    public typealias FetchProfilesBlock = @Sendable (_ ids: [UserID], _ completionHandler: @escaping FetchProfilesCompletionHandler) -> Void
    /// The app's provider in return-value style: it must answer before it returns, on the
    /// thread the library called it on.
    public typealias ProfilesReturningBlock = @Sendable (_ ids: [UserID]) -> [Profile]
    /// The library's callback: rendering is done.
    public typealias RenderCallback = @Sendable (Rendering) -> Void

    public enum ProfileSource: Sendable { case returning(ProfilesReturningBlock), completionHandler(FetchProfilesBlock) }

    public static let queueLabel = "chat.library"

    /// The library's serial queue: every step of the library's own work runs here.
    public let queue = DispatchQueue(label: ChatLibrary.queueLabel)
    public let source: ProfileSource
    /// How long the library waits for a completion handler before it goes on without it.
    public let patience: Seconds
    public let narrate: Narrate
    let diagnosticLog = Shared<[Diagnostic]>([])

    private let counters = Mutex<(held: [Seconds], incomingDelays: [Seconds], handlerCalls: Int)>(([], [], 0))

    public init(source: ProfileSource, patience: Seconds, narrate: @escaping Narrate = { _ in }) {
        (self.source, self.patience, self.narrate) = (source, patience, narrate)
    }

    /// Seconds the library's queue spent inside the app's provider, one entry per request.
    public var heldTimes: [Seconds] { counters.withLock { $0.held } }
    /// Seconds each incoming message waited for the library's queue.
    public var incomingDelays: [Seconds] { counters.withLock { $0.incomingDelays } }
    /// Calls of completion handlers the library handed out (all of them, counted or ignored).
    public var handlerCalls: Int { counters.withLock { $0.handlerCalls } }
    func countHandlerCall() { counters.withLock { $0.handlerCalls += 1 } }

    /// What the library noticed about the app's side of its contracts.
    public var diagnostics: [Diagnostic] { diagnosticLog.get() }

    /// Renders `conversation`, asking the app for the senders' profiles, then calls `callback`
    /// on the library's queue. The library calls it once; it says nothing of the app's thread.
    public func open(_ conversation: Conversation, callback: @escaping RenderCallback) {
        queue.async { [self] in
            let ids = conversation.userIDs
            narrate("library starts rendering; needs \(ids.count) profiles")
            fetchProfiles(ids) { [self] profiles, names in
                let rendering = render(conversation, profiles: profiles, names: names)
                narrate("library renders \(rendering.lines.count) lines; calls the app back")
                callback(rendering)
            }
        }
    }

    /// A message from the network. It is shown on the library's queue, so it waits for
    /// whatever holds that queue; the wait is recorded.
    public func receive(_ message: Message) {
        let postedAt = MonotonicClock.now()
        queue.async { [self] in
            let delay = MonotonicClock.now() - postedAt
            narrate("library shows an incoming message (it waited \(Format.seconds(delay)))")
            counters.withLock { $0.incomingDelays.append(delay) }
        }
    }

    /// On the library's queue. `then` also runs on the library's queue.
    private func fetchProfiles(_ ids: [UserID], then: @escaping @Sendable ([Profile], Rendering.Names) -> Void) {
        switch source {
        case .returning(let provide):
            narrate("library calls the app's provider and waits for its return value")
            var profiles: [Profile] = []
            let held = holding { profiles = provide(ids) }
            narrate("library has the return value; its queue was held \(Format.seconds(held))")
            then(profiles, .fromApp)

        case .completionHandler(let fetch):
            let pending = PendingHandler<[Profile]>(name: "fetchProfiles handler", library: self) { settlement in
                switch settlement {
                case .called(let profiles): then(profiles, .fromApp)
                case .neverCalled: then([], .idsOnly)
                }
            }
            narrate("library hands the app a completion handler")
            pending.start()
            let counted: FetchProfilesCompletionHandler = { [self] profiles in
                countHandlerCall()
                pending.handler(profiles)
            }
            let held = holding { fetch(ids, counted) }
            narrate("library's queue is free again after \(Format.seconds(held))")
        }
    }

    /// The app's completion-handler provider, bridged to `async` with no guard or watchdog of
    /// the library's own: the checked continuation is the whole contract. Unlike
    /// `PendingHandler`, a second `resume` traps, and a handler dropped without a call makes the
    /// runtime warn while the awaiting task stays suspended for good.
    public func profiles(for ids: [UserID]) async -> [Profile] {
        switch source {
        case .returning(let provide): return provide(ids)
        case .completionHandler(let fetch):
            return await withCheckedContinuation { continuation in
                narrate("library hands the app a handler that resumes a checked continuation")
                fetch(ids) { [self] profiles in
                    countHandlerCall()
                    narrate("app calls the handler; it resumes the continuation")
                    continuation.resume(returning: profiles)
                }
            }
        }
    }

    /// Runs the app's `code` on the library's queue and records how long it held the queue.
    private func holding(_ code: () -> Void) -> Seconds {
        let start = MonotonicClock.now()
        code()
        let held = MonotonicClock.now() - start
        counters.withLock { $0.held.append(held) }
        return held
    }

    private func render(_ conversation: Conversation, profiles: [Profile], names: Rendering.Names) -> Rendering {
        let byID = Dictionary(profiles.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let lines = conversation.messages.map { "\(byID[$0.from] ?? $0.from): \($0.text)" }
        return Rendering(lines: lines, names: byID.isEmpty ? .idsOnly : names)
    }
}
