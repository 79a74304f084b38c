import Foundation

/// `MainQueuePresenter` forgotten: the completion comes on the queue the work ran on, and UI
/// code in it runs off the main queue.
public final class BackgroundPresenter: Sendable {
    public init() {}

    public func present(_ completion: @escaping @Sendable (String) -> Void) {
        DispatchQueue.global().async { completion("shown") }
    }
}
