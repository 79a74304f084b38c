import Dispatch
import LabHarness

/// What the delegate decides about a history download, like URLSession's `ResponseDisposition`.
public enum HistoryDisposition: String, Sendable { case allow, cancel }

/// What the server announced before sending the messages (URLSession's response, before its body).
public struct HistoryHeader: Sendable { public var conversation: String, messageCount: Int }

/// How a history sync ended (`noDecision`: the library stopped it after its patience).
public enum SyncEnd: Sendable, Equatable { case finished(messages: Int), cancelled, noDecision }

/// A delegate whose first method carries a completion handler that decides whether the work goes
/// on (URLSession's `dataTask(_:didReceive:completionHandler:)`); all run on the library's queue.
public protocol HistorySyncDelegate: AnyObject, Sendable {
    func library(
        _ library: ChatLibrary, didReceive header: HistoryHeader,
        completionHandler: @escaping @Sendable (HistoryDisposition) -> Void)
    func library(_ library: ChatLibrary, didReceive message: Message)
    func library(_ library: ChatLibrary, didFinishSync end: SyncEnd)
}

extension ChatLibrary {
    /// Downloads `conversation`'s history through `delegate` (kept until the sync ends, as
    /// URLSession keeps its delegate): header, then if allowed the messages `spacing` s apart.
    public func syncHistory(of conversation: Conversation, spacing: Seconds = 0.005, delegate: HistorySyncDelegate) {
        queue.async { [self] in
            let header = HistoryHeader(conversation: conversation.title, messageCount: conversation.messages.count)
            narrate("library receives the history header (\(header.messageCount) messages); asks its delegate")
            let pending = PendingHandler<HistoryDisposition>(name: "decision handler", library: self) {
                [self] settlement in
                switch settlement {
                case .called(.allow):
                    narrate("library goes on: downloads \(header.messageCount) messages")
                    deliver(conversation.messages[...], spacing: spacing, delegate: delegate)
                case .called(.cancel):
                    narrate("library cancels the sync: nothing downloaded")
                    delegate.library(self, didFinishSync: .cancelled)
                case .neverCalled:
                    delegate.library(self, didFinishSync: .noDecision)
                }
            }
            pending.start()
            delegate.library(self, didReceive: header, completionHandler: pending.handler)
        }
    }

    /// On the library's queue: one message now, the rest later, then the end.
    private func deliver(
        _ messages: ArraySlice<Message>, spacing: Seconds, delegate: HistorySyncDelegate, sent: Int = 0
    ) {
        guard let message = messages.first else {
            narrate("library finishes the sync: \(sent) messages")
            delegate.library(self, didFinishSync: .finished(messages: sent))
            return
        }
        delegate.library(self, didReceive: message)
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(spacing * 1e9))) { [self] in
            deliver(messages.dropFirst(), spacing: spacing, delegate: delegate, sent: sent + 1)
        }
    }
}
