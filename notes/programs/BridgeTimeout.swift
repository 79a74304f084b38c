// A timeout for the callback bridge: the key to notes/callback.md, exercise 2.
//
// A standalone program with the shapes of exp-callback's `forgetting` app: a provider that
// looks up for 0.25 s and then drops its handler (or, with `late`, calls it 1.5 s after its
// lookup), and the library's patience, 2 × latency + 0.25 s = 0.75 s. Build and run it from the
// repository's root:
//
//   swiftc -swift-version 6 notes/programs/BridgeTimeout.swift -o .build/bridge-timeout
//   .build/bridge-timeout racing        # a task group races the continuation against Task.sleep
//   .build/bridge-timeout racing late   # the same, and the app calls the handler after all
//   .build/bridge-timeout guarded       # one continuation, a handler and a timer, one guard
//   .build/bridge-timeout guarded late
import Dispatch
import Foundation
import Synchronization

struct Profile: Sendable { let id: Int }

let start = DispatchTime.now()
func log(_ message: String) {
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    print(String(format: "%.3f s  ", seconds) + message)
}

let latency = 0.25
let patience = 2 * latency + 0.25

/// The forgetful app: looks the profiles up, then drops the handler, or calls it `lateBy` seconds
/// after its lookup.
func fetch(_ ids: [Int], lateBy: Double?, _ handler: @escaping @Sendable ([Profile]) -> Void) {
    DispatchQueue.global().asyncAfter(deadline: .now() + latency) {
        guard let lateBy else { return }   // forgotten: the handler is released uncalled
        DispatchQueue.global().asyncAfter(deadline: .now() + lateBy) {
            log("app calls the handler after all")
            handler(ids.map(Profile.init))
        }
    }
}

/// The first idea: race the continuation against `Task.sleep` in a task group.
func profilesRacing(_ ids: [Int], lateBy: Double?) async -> [Profile] {
    await withTaskGroup(of: (String, [Profile]).self) { group in
        group.addTask {
            let profiles = await withCheckedContinuation { (c: CheckedContinuation<[Profile], Never>) in
                fetch(ids, lateBy: lateBy) { c.resume(returning: $0) }
            }
            return ("handler", profiles)
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(patience))
            return ("timeout", [])
        }
        let (winner, profiles) = await group.next()!
        log("race decided: \(winner); the group now waits for its other child")
        group.cancelAll()
        return profiles
    }
}

/// The fix: one continuation that the handler and a timer both try to resume through one guard.
func profilesGuarded(_ ids: [Int], lateBy: Double?) async -> [Profile] {
    await withCheckedContinuation { (c: CheckedContinuation<[Profile], Never>) in
        let settled = Mutex(false)
        let settle: @Sendable (String, [Profile]) -> Void = { who, value in
            let first = settled.withLock { done -> Bool in
                if done { return false }
                done = true
                return true
            }
            if first {
                log("\(who) resumes the continuation")
                c.resume(returning: value)
            } else {
                log("\(who) is refused by the guard")
            }
        }
        fetch(ids, lateBy: lateBy) { settle("handler", $0) }
        DispatchQueue.global().asyncAfter(deadline: .now() + patience) { settle("timer", []) }
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let lateBy: Double? = arguments.contains("late") ? 1.5 : nil
let racing = arguments.first != "guarded"
log("\(racing ? "racing" : "guarded"): asking for profiles (latency \(latency) s, patience \(patience) s, late call \(lateBy.map { "\($0) s after the lookup" } ?? "never"))")
Task.detached {
    let profiles = racing ? await profilesRacing([1, 2], lateBy: lateBy) : await profilesGuarded([1, 2], lateBy: lateBy)
    log("returned \(profiles.map(\.id))")
}
// Stay up long enough to see a late call and whether the function ever returns.
Thread.sleep(forTimeInterval: 3)
log("main gives up waiting after 3 s")
