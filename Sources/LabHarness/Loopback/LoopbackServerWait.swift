extension LoopbackServer {
    /// Waits (polling every 5 ms, at most `timeout` seconds) until the server has sent
    /// `count` whole responses; returns the monotonic instant it saw them, or nil. For a
    /// watcher thread that must know the client has had everything before it judges a wait
    /// that follows as the client's own.
    public func waitForCompletedResponses(_ count: Int = 1, within timeout: Seconds) -> Seconds? {
        let until = MonotonicClock.now() + timeout
        while counts.responsesCompleted < count {
            if MonotonicClock.now() >= until { return nil }
            MonotonicClock.sleep(for: 0.005)
        }
        return MonotonicClock.now()
    }
}
