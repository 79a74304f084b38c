import Foundation

/// A process and everything below it: the tree `lab watch` runs a command in, looks at when the
/// command hangs, and ends whole. Killing only the command's process (or its group) is not
/// enough: `swift test` starts the test binary in a process group of its own, so `timeout 15
/// swift test` once left the hung test binary running after `swift test` itself was gone.
public enum ProcessTree {
    /// The live processes below `root` (children, grandchildren, ...), parents before their
    /// children; zombies are left out (they are dead, waiting only to be reaped).
    public static func descendants(
        of root: Int32, in table: [ProcessTable.Entry] = ProcessTable.all()
    ) -> [ProcessTable.Entry] {
        var children: [Int32: [ProcessTable.Entry]] = [:]
        for entry in table where entry.pid != root || entry.parent != root {
            children[entry.parent, default: []].append(entry)
        }
        var result: [ProcessTable.Entry] = []
        var queue = [root]
        var seen: Set<Int32> = [root]
        while !queue.isEmpty {
            let parent = queue.removeFirst()
            for child in (children[parent] ?? []).sorted(by: { $0.pid < $1.pid }) where seen.insert(child.pid).inserted
            {
                if child.state != "Z" { result.append(child) }
                queue.append(child.pid)
            }
        }
        return result
    }

    /// Sends `SIGKILL` to every live process below `root` until none is left or `budget` runs
    /// out (a process may start another while the kill goes round, so it goes round again).
    /// Returns what was still alive at the end: empty when the tree is gone. Reaping is the
    /// parents' business; `root` should reap orphans (see `becomeSubreaper`).
    @discardableResult
    public static func end(below root: Int32, budget: Seconds = 3) -> [ProcessTable.Entry] {
        let deadline = MonotonicClock.now() + budget
        while true {
            let alive = descendants(of: root)
            if alive.isEmpty || MonotonicClock.now() >= deadline { return alive }
            for process in alive { _ = kill(process.pid, SIGKILL) }
            MonotonicClock.sleep(for: 0.01)
        }
    }

    /// Makes this process the one orphans below it are handed to, so that its whole tree stays
    /// below it by parent links; false where the system cannot (Darwin).
    public static func becomeSubreaper() -> Bool { HostPlatform.becomeSubreaper() }
}
