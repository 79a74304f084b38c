import Foundation

/// `@MainActor` view models. `refresh()` schedules work on the main actor that holds the model
/// briefly: it is released once that task has run, which only happens if the main actor is
/// free while a test waits. `StickyModel` keeps a never-ending task that holds it: a leak.
@MainActor public final class BrieflyHeldModel {
    public private(set) var refreshed = false

    public init() {}

    public func refresh() {
        Task { @MainActor in self.refreshed = true }  // holds self until the task has run
    }
}

@MainActor public final class StickyModel {
    public private(set) var ticks = 0
    private var poller: Task<Void, Never>?

    public init() {}

    public func refresh() {
        poller = Task { @MainActor in
            while !Task.isCancelled {  // self is held strongly for ever
                self.ticks += 1
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
        }
    }
}

/// An actor that stores a closure capturing itself (`LeakyTicker`, a cycle), or weakly
/// (`TidyTicker`).
public actor LeakyTicker {
    private var onTick: (@Sendable () -> Void)?
    public init() {}
    public func start() { onTick = { _ = self } }
}

public actor TidyTicker {
    private var onTick: (@Sendable () -> Void)?
    public init() {}
    public func start() { onTick = { [weak self] in _ = self } }
}

/// A `@MainActor` view model that hands itself to a `DispatchQueue.main.async` block: released
/// once the main queue has run that block, which only happens if the main queue is free while
/// a test waits.
@MainActor public final class MainQueueHeldModel {
    public private(set) var refreshed = false

    public init() {}

    public func refresh() {
        DispatchQueue.main.async { self.refreshed = true }  // holds self until the block has run
    }
}

/// `BrieflyHeldModel` with a retain cycle besides: `refresh()` stores a closure that captures the
/// model in its own property `onChange`. A leak, however free the main actor is.
@MainActor public final class SelfObservingModel {
    public private(set) var changes = 0
    private var onChange: (() -> Void)?

    public init() {}

    public func refresh() {
        onChange = { self.changes += 1 }  // self keeps the closure, the closure keeps self
        Task { @MainActor in self.onChange?() }
    }
}
