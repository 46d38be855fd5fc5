import JouleHardware

/// Runs a `BeaconSession` over an `HCITransport`: events in, decoded adverts to the session,
/// radio states out as commands, results to `emit`. The same loop serves live scans and
/// replays; on replay the capture's timestamps are the clock.
public struct BeaconSessionRunner {
    public var session: BeaconSession
    public var commander: ScanCommander
    /// Called before each event with its time, e.g. to pace a replay in real time.
    public var pace: ((Int64) async -> Void)?
    /// Decode problems, one line each.
    public var warn: (String) -> Void = { _ in }

    public init(session: BeaconSession, commander: ScanCommander) {
        self.session = session
        self.commander = commander
    }

    /// Runs until the transport ends or the session finishes; the radio is off on return,
    /// also when an error is thrown after scanning began.
    public mutating func run(emit: (BeaconSession.Output) -> Void) async throws(HCITransportError) {
        do throws(HCITransportError) {
            try await handle(session.initialOutputs, emit)
            while !session.finished, let record = try await commander.transport.nextEvent() {
                let time = max(record.timestampMicros ?? session.now, session.now)
                if let pace { await pace(time) }
                try await handle(session.advance(to: time), emit)
                guard !record.bytes.isEmpty else { continue }
                var outputs: [BeaconSession.Output] = []
                let problem = record.bytes.withUnsafeBytes { raw in
                    BeaconAdvert.forEach(inEvent: raw, timestampMicros: time) { advert in
                        outputs += session.receive(advert)
                    }
                }
                if let problem { warn("event at \(Double(time) / 1_000_000): \(problem)") }
                try await handle(outputs, emit)
            }
            if !session.finished { try await handle(session.advance(to: session.now, inclusive: true), emit) }
        } catch {
            try? await commander.apply(.off)
            throw error
        }
        try await commander.apply(.off)
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
