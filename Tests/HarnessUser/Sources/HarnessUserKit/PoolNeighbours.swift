import Foundation

/// Stands in for other tests running beside yours that block threads of the cooperative pool
/// (a synchronous wait in a synchronous Swift Testing test, a semaphore in async code): one
/// blocking task per core, each holding its thread for `seconds`. Code of yours that needs the
/// pool meanwhile, however quick, waits for them.
public enum PoolNeighbours {
    public static func holdEveryPoolThread(for seconds: TimeInterval) {
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            // At the caller's priority: on Linux each priority has cooperative threads of its own.
            Task.detached(priority: Task.currentPriority) { hold(seconds) }
        }
    }

    @inline(never)
    static func hold(_ seconds: TimeInterval) {
        Thread.sleep(forTimeInterval: seconds)  // blocks a pool thread: the point
    }
}

/// A correct, quick async lookup.
public enum QuickLookup {
    public static func answer() async -> Int {
        await Task.yield()
        return 42
    }
}
