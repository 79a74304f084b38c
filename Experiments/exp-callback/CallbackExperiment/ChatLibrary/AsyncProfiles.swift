import LabHarness

extension ChatLibrary {
    /// The app's completion-handler provider, bridged to `async` with no guard or watchdog of
    /// the library's own: the checked continuation is the whole contract. Unlike
    /// `PendingHandler`, a second `resume` traps, and a handler dropped without a call makes the
    /// runtime warn while the awaiting task stays suspended for good.
    public func profiles(for ids: [UserID]) async -> [Profile] {
        switch source {
        case .returning(let provide):
            return provide(ids)
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
}
