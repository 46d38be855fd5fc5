/// What restoring from the journal found.
public enum KnobRecovery: Sendable, Hashable {
    /// No journal: nothing was held.
    case nothing
    /// The journal came from another boot (`bootID`): the kernel reset the knobs, so it was
    /// discarded without writing anything.
    case stale(bootID: String?)
    /// The journal's knobs, in the order they were restored (the reverse of application).
    case restored([KnobOutcome])

    /// The outcomes, empty unless `restored`.
    public var outcomes: [KnobOutcome] {
        if case .restored(let outcomes) = self { return outcomes }
        return []
    }
}
