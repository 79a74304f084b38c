extension ChildRun {
    /// The stacks of the child's threads when the harness killed it, named now (`addr2line`
    /// runs here, after the child is gone, so naming never delays the kill). `nil` when the
    /// child was not killed for a stall or at its budget.
    public var stacks: StackSnapshot? { rawStacks?.named() }
}
