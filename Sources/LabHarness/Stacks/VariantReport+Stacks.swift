/// What the stacks of a variant say, in the terms a finding quotes.
extension VariantReport {
    /// How many threads waited in a frame containing `callee`, called (at any depth) from a
    /// frame containing `caller`; 0 without stacks.
    public func threadsWaiting(in callee: String, calledFrom caller: String) -> Int {
        (stacks ?? []).waiting(in: callee, calledFrom: caller).count
    }

    /// `6 threads (lab.caller) wait in DispatchSemaphore called from globalCaller`, for a
    /// finding's summary; `nil` when the stacks do not show it (or there are none).
    public func whereClause(in callee: String, calledFrom caller: String) -> String? {
        (stacks ?? []).whereClause(in: callee, calledFrom: caller)
    }

    /// The grouped view: one summary line per set of threads with the same stack.
    public var stackGroups: [StackGroup] { StackGroup.fold(stacks ?? []) }
}
