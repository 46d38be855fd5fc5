/// The thermal state at one instant and the inputs behind it.
public struct ThermalAssessment: Sendable, Hashable {
    /// The worst vote, or nominal with no votes.
    public var state: ThermalState
    /// The input that set `state` (the first of the worst votes), nil when nominal by default.
    public var cause: String?
    /// Every input that could vote, in reading order.
    public var votes: [ThermalVote]

    public init(state: ThermalState, cause: String?, votes: [ThermalVote]) {
        self.state = state
        self.cause = cause
        self.votes = votes
    }
}
