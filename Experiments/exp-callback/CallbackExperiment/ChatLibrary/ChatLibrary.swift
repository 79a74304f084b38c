import Dispatch
import LabHarness
import Synchronization

/// A small in-process chat library in the shape of the article's ChatKit: it renders
/// conversations, knows users only by id, and asks the app for their profiles. It uses both
/// kinds of block the article tells apart: a **callback** (`open(_:callback:)`), which the library
/// runs on its own queue when *its* work is done, and a **completion handler**
/// (`.completionHandler`), which the app runs when the *app's* work is done: exactly once, from
/// any thread, whenever it is ready (`PendingHandler` is the library's side of that contract).
/// All of its state changes happen on one serial queue, `chat.library`.
public final class ChatLibrary: Sendable {
    /// The app calls this with the profiles, once, from any thread.
    public typealias FetchProfilesCompletionHandler = @Sendable (_ profiles: [Profile]) -> Void
    /// The app's provider in completion-handler style (ChatKit's `setFetchProfilesBlock:`), or in
    /// return-value style (it must answer before it returns, on the library's thread).
    public typealias FetchProfilesBlock =
        @Sendable (_ ids: [UserID], _ completionHandler: @escaping FetchProfilesCompletionHandler) -> Void
    public typealias ProfilesReturningBlock = @Sendable (_ ids: [UserID]) -> [Profile]
    public typealias RenderCallback = @Sendable (Rendering) -> Void
    public enum ProfileSource: Sendable {
        case returning(ProfilesReturningBlock), completionHandler(FetchProfilesBlock)
    }

    public static let queueLabel = "chat.library"
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

    /// Seconds the library's queue spent inside the app's provider, one per request; seconds
    /// each incoming message waited for the queue; calls of handlers it handed out (ignored too).
    public var heldTimes: [Seconds] { counters.withLock { $0.held } }
    public var incomingDelays: [Seconds] { counters.withLock { $0.incomingDelays } }
    public var handlerCalls: Int { counters.withLock { $0.handlerCalls } }
    func countHandlerCall() { counters.withLock { $0.handlerCalls += 1 } }
    /// What the library noticed about the app's side of its contracts.
    public var diagnostics: [Diagnostic] { diagnosticLog.get() }

    /// Renders `conversation` with the senders' profiles from the app, then calls `callback` on the library's queue.
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

    /// A message from the network, shown on the library's queue: it waits for whatever holds that queue.
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
            let held = holding { fetch(ids, pending.handler) }
            narrate("library's queue is free again after \(Format.seconds(held))")
        }
    }

    /// The app's completion-handler provider, bridged to `async` with no guard or watchdog of the
    /// library's own: the checked continuation is the whole contract.
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
        return counters.withLock {
            $0.held.append(held); return held
        }
    }

    private func render(_ conversation: Conversation, profiles: [Profile], names: Rendering.Names) -> Rendering {
        let byID = Dictionary(profiles.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let lines = conversation.messages.map { "\(byID[$0.from] ?? $0.from): \($0.text)" }
        return Rendering(lines: lines, names: byID.isEmpty ? .idsOnly : names)
    }
}
