import Foundation

/// Fetches `count` items, each blocking for `latency` seconds (think of a synchronous network
/// call). `HungryFetcher` gives every item a thread of its own; `FrugalFetcher` runs them one
/// after another on a single serial queue.
public enum HungryFetcher {
    public static func fetchAll(count: Int, latency: Double) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                Thread.sleep(forTimeInterval: latency)
                group.leave()
            }
            thread.name = "fetch-\(index)"
            thread.start()
        }
        group.wait()
    }
}

public enum FrugalFetcher {
    public static func fetchAll(count: Int, latency: Double) {
        let queue = DispatchQueue(label: "frugal.fetch")
        for _ in 0..<count {
            queue.sync { Thread.sleep(forTimeInterval: latency / 10) }
        }
    }
}
