import JouleHardware

/// The live thermal state: the snapshot rule plus hysteresis and debounce.
///
/// Rising, the state follows the rule. Falling, it steps down only once every input is below
/// its threshold minus its hysteresis (at least 2 °C), so a zone hovering at a trip cannot
/// make the state flap. A change of either direction must be seen on `confirmations`
/// consecutive reads before it is taken, so one noisy read cannot flip it. A sensor that fails
/// keeps its last vote for `staleAfter` seconds: a hot zone whose driver hiccups does not read
/// as cool.
public struct ThermalStateMachine: Sendable {
    public struct Change: Sendable, Hashable {
        public var state: ThermalState
        public var previous: ThermalState
        /// The input that caused the change: the worst input when rising, the last one to
        /// cool down when falling.
        public var cause: String?
    }

    public private(set) var state: ThermalState = .nominal
    public private(set) var cause: String?
    /// The latest assessment without hysteresis, for display.
    public private(set) var lastAssessment = ThermalAssessment(state: .nominal, cause: nil, votes: [])
    /// The votes the state was decided on: the latest reading's, plus the last vote of an input
    /// that failed to read and is not yet stale. Polling decides on these, so a zone near its
    /// threshold that misreads once is still polled fast.
    public private(set) var votesInForce: [ThermalVote] = []

    public var confirmations: Int
    public var staleAfter: Double

    private var candidate: (state: ThermalState, seen: Int)?
    private var lastVotes: [String: (vote: ThermalVote, at: Double)] = [:]

    public init(confirmations: Int = 2, staleAfter: Double = 30) {
        self.confirmations = max(1, confirmations)
        self.staleAfter = staleAfter
    }

    /// Takes the first reading's state as it is, without debounce or an event: the snapshot
    /// that precedes all events already reports it.
    public mutating func start(_ readings: ThermalReadings, at time: Double) {
        let assessment = ThermalStateRule.evaluate(readings)
        lastAssessment = assessment
        state = assessment.state
        cause = assessment.cause
        candidate = nil
        votesInForce = assessment.votes
        lastVotes = Dictionary(assessment.votes.map { ($0.name, ($0, time)) }, uniquingKeysWith: { a, _ in a })
    }

    /// Whether a change is waiting for confirmation: the caller should read again soon.
    public var isConfirming: Bool { candidate != nil }

    /// Feeds one reading taken at `time`; returns the change if the state changed.
    public mutating func update(_ readings: ThermalReadings, at time: Double) -> Change? {
        let assessment = ThermalStateRule.evaluate(readings)
        lastAssessment = assessment
        var votes = assessment.votes
        let fresh = Set(votes.map(\.name))
        for vote in votes { lastVotes[vote.name] = (vote, time) }
        // Inputs that stopped reading keep their last vote for a while.
        for (name, entry) in lastVotes where !fresh.contains(name) {
            if time - entry.at <= staleAfter && readings.hasFailedInput(named: name) {
                votes.append(entry.vote)
            } else {
                lastVotes[name] = nil
            }
        }
        votesInForce = votes

        let risen = votes.map(\.state).max() ?? .nominal
        let lowered = votes.map(Self.stateWithHysteresis).max() ?? .nominal
        let target: ThermalState
        if risen > state {
            target = risen
        } else if lowered < state {
            target = lowered
        } else {
            target = state
        }

        guard target != state else {
            candidate = nil
            return nil
        }
        let seen = candidate?.state == target ? (candidate?.seen ?? 0) + 1 : 1
        guard seen >= confirmations else {
            candidate = (target, seen)
            return nil
        }
        candidate = nil
        let previous = state
        state = target
        let responsible: ThermalVote?
        if target > previous {
            responsible = votes.first { $0.state == target }
        } else {
            responsible = votes.first { Self.stateWithHysteresis($0) == target && target > .nominal }
                ?? votes.max { Self.stateWithHysteresis($0) < Self.stateWithHysteresis($1) }
        }
        cause = responsible?.name
        return Change(state: target, previous: previous, cause: responsible?.name)
    }

    /// The state an input holds while falling: judged as if it were `hysteresis` warmer.
    static func stateWithHysteresis(_ vote: ThermalVote) -> ThermalState {
        guard let temperature = vote.temperatureC, let thresholds = vote.thresholds else { return vote.state }
        return thresholds.state(at: temperature + thresholds.hysteresisC)
    }
}

extension ThermalReadings {
    /// Whether the named input is present but failed to read (as opposed to having vanished).
    func hasFailedInput(named name: String) -> Bool {
        if let zone = zones.first(where: { $0.name == name }) { return zone.temperatureC == nil }
        if let sensor = hwmon.first(where: { $0.name == name }) { return sensor.temperatureC == nil }
        if let device = coolingDevices.first(where: { $0.name == name }) { return device.load == nil }
        return false
    }
}
