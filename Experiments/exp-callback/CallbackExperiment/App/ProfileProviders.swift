import Dispatch
import LabHarness

/// The app's side: its user directory, and the ways an app can answer the library's request
/// for profiles, each narrating its steps so the report shows where the app's code ran.
public struct AppProfiles: Sendable {
    public static let directory: [UserID: String] = ["u1": "Ada", "u2": "Grace", "u3": "Linus"]
    public static let queueLabel = "app.profiles"
    /// Seconds a lookup takes; the app's own serial queue for lookups.
    public let latency: Seconds, narrate: Narrate, queue: DispatchQueue

    public init(
        latency: Seconds, narrate: @escaping Narrate = { _ in },
        queue: DispatchQueue = DispatchQueue(label: AppProfiles.queueLabel)
    ) { (self.latency, self.narrate, self.queue) = (latency, narrate, queue) }

    /// The lookup itself: blocks the calling thread for `latency`.
    public func lookUp(_ ids: [UserID]) -> [Profile] {
        narrate("app looks up \(ids.count) profiles (\(Format.seconds(latency)))")
        MonotonicClock.sleep(for: latency)
        return AppProfiles.cached(ids)
    }

    static func cached(_ ids: [UserID]) -> [Profile] { ids.map { Profile(id: $0, name: directory[$0] ?? $0) } }

    /// Return-value style: the lookup runs on the thread the library called from, which waits
    /// for the answer (`sync-return`; the callback handout's first exercise changes it).
    public var returning: ChatLibrary.ProfilesReturningBlock {
        { ids in lookUp(ids) }
    }

    /// Completion-handler style, done right: the lookup moves to the app's queue, the
    /// provider returns at once, and the handler is called once, from the app's queue.
    public var onAppQueue: ChatLibrary.FetchProfilesBlock {
        { ids, completionHandler in
            narrate("app moves the lookup to its own queue and returns")
            queue.async { completionHandler(lookUp(ids)) }
        }
    }

    /// Completion-handler style with a warm cache: the handler is called before the provider
    /// even returns, on the library's own queue. Allowed: "whenever you are ready" includes now.
    public var fromCache: ChatLibrary.FetchProfilesBlock {
        { ids, completionHandler in
            narrate("app answers from its cache at once")
            completionHandler(AppProfiles.cached(ids))
        }
    }

    /// The classic bug: an early-return path that forgets the handler. The lookup runs, then
    /// the block ends and the handler is released without ever being called.
    public var forgetting: ChatLibrary.FetchProfilesBlock {
        { ids, completionHandler in
            queue.async {
                let profiles = lookUp(ids)
                if !profiles.isEmpty {
                    // The bug under study: this path returns without calling completionHandler.
                    narrate("app returns early and never calls the handler")
                    return
                }
                completionHandler(profiles)
            }
        }
    }

    /// The other classic bug: the handler is called with the result, and again `gap` seconds
    /// later from a retry path on another queue.
    public func twice(
        gap: Seconds, retryQueue: DispatchQueue = DispatchQueue(label: "app.retry")
    ) -> ChatLibrary.FetchProfilesBlock {
        { ids, completionHandler in
            queue.async {
                let profiles = lookUp(ids)
                completionHandler(profiles)
                retryQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(gap * 1e9))) {
                    // The bug under study: a retry path that calls the handler a second time.
                    narrate("app calls the handler again from its retry path")
                    completionHandler(profiles)
                }
            }
        }
    }
}
