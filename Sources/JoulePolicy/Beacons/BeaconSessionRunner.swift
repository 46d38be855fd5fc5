import JouleHardware

/// Runs a `BeaconSession` over an `HCITransport`: events in, decoded adverts to the session,
/// radio states out as commands, results to `emit`. The same loop serves live scans and
/// replays; on replay the capture's timestamps are the clock and the session starts at the
/// first event's time.
public struct BeaconSessionRunner {
    public let configuration: BeaconSession.Configuration
    /// Created at `start`, or on replay at the first event's time.
    public private(set) var session: BeaconSession?
    public var commander: ScanCommander
    /// Called before each event with its time, e.g. to pace a replay in real time.
    public var pace: ((Int64) async -> Void)?
    /// Decode problems, one line each.
    public var warn: (String) -> Void = { _ in }
    /// The energy policy's input; checked before every event.
    public var policy: ScanPolicySwitch?

    public init(configuration: BeaconSession.Configuration, start: Int64?, commander: ScanCommander) {
        self.configuration = configuration
        self.commander = commander
        session = start.map { BeaconSession(configuration: configuration, start: $0) }
    }

    /// Runs until the transport ends or the session finishes. The radio is off on return,
    /// also when an error is thrown after scanning began.
    public mutating func run(emit: (BeaconSession.Output) -> Void) async throws(HCITransportError) {
        do throws(HCITransportError) {
            if let session { try await handle(session.initialOutputs, emit) }
            while session?.finished != true, let record = try await commander.transport.nextEvent() {
                if session == nil {
                    guard let start = record.timestampMicros, BeaconTime.isPlausible(start) else { continue }
                    let started = BeaconSession(configuration: configuration, start: start)
                    session = started
                    try await handle(started.initialOutputs, emit)
                }
                try await process(record, emit)
            }
            if var session, !session.finished {
                let outputs = session.advance(to: session.now, inclusive: true)
                self.session = session
                try await handle(outputs, emit)
            }
        } catch {
            try? await commander.apply(.off)
            throw error
        }
        try await commander.apply(.off)
    }

    private mutating func process(_ record: HCIEventRecord, _ emit: (BeaconSession.Output) -> Void)
        async throws(HCITransportError)
    {
        guard var session else { return }
        // Corrupt timestamps (negative, beyond year 9999) and steps back keep the current time.
        let stamped = record.timestampMicros.flatMap { BeaconTime.isPlausible($0) ? $0 : nil }
        let time = max(stamped ?? session.now, session.now)
        if let pace { await pace(time) }
        var outputs: [BeaconSession.Output] = []
        if let wanted = policy?.current, wanted != session.controller.policy {
            outputs += session.setPolicy(wanted)
        }
        outputs += session.advance(to: time)
        if !record.bytes.isEmpty {
            let problem = record.bytes.withUnsafeBytes { raw in
                BeaconAdvert.forEach(inEvent: raw, timestampMicros: time) { advert in
                    outputs += session.receive(advert)
                }
            }
            if let problem { warn("event at \(Double(time) / 1_000_000): \(problem)") }
        }
        self.session = session
        try await handle(outputs, emit)
    }

    private mutating func handle(_ outputs: [BeaconSession.Output], _ emit: (BeaconSession.Output) -> Void)
        async throws(HCITransportError)
    {
        for output in outputs {
            if case .radio(_, let state) = output { try await commander.apply(state) }
            emit(output)
        }
    }
}
