@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Testing

/// Scan control end to end: sessions driven by injected time, and the commands they cause
/// on the recording transport.
@Suite struct BeaconSessionTests {
    static let s: Int64 = 1_000_000
    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let region = BeaconRegion(name: "office", uuid: uuid)

    static func advert(_ time: Int64, minor: UInt16 = 1, rssi: Int8 = -65) -> BeaconAdvert {
        BeaconAdvert(
            timestampMicros: time, address: BluetoothAddress(value: 0xC0FFEE000001 + UInt64(minor)), addressType: .public,
            rssi: rssi, frame: .iBeacon(IBeacon(uuid: uuid, major: 1, minor: minor, txPower: -59)))
    }

    /// The LE Meta event bytes carrying `advert`'s iBeacon.
    static func eventBytes(minor: UInt16 = 1, rssi: Int8 = -65) -> [UInt8] {
        let data: [UInt8] = [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuidBytes + [0x00, 0x01, UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
        let report: [UInt8] = [0x03, 0x00, 0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0, UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        let parameters: [UInt8] = [0x02, 0x01] + report
        return [0x3E, UInt8(parameters.count)] + parameters
    }

    static let uuidBytes: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]

    static func radios(_ outputs: [BeaconSession.Output]) -> [(Int64, RadioState)] {
        outputs.compactMap { if case .radio(let t, let r) = $0 { (t / s, r) } else { nil } }
    }

    @Test func monitoringPausesWhileNothingChangesAndWakesOnEntry() {
        var session = BeaconSession(configuration: .init(mode: .monitor, regions: [Self.region]), start: 0)
        #expect(session.radio == .scanning(.monitoring))
        var outputs = session.advance(to: 245 * Self.s)
        let transitions = Self.radios(outputs)
        #expect(transitions.map(\.0) == [40, 60, 70, 120, 130, 240])
        #expect(transitions.map(\.1.isOn) == [false, true, false, true, false, true])
        // A beacon heard in the 240–250 s window: entry, and full scanning again.
        outputs = session.receive(Self.advert(245 * Self.s))
        #expect(outputs.contains { if case .region(let e) = $0 { e.kind == .enter && e.timestampMicros == 245 * Self.s } else { false } })
        outputs = session.advance(to: 260 * Self.s)
        #expect(Self.radios(outputs).isEmpty, "no pause right after a change")
        #expect(session.radio == .scanning(.monitoring))
    }

    @Test func exitNeedsListeningTimeNotJustWallTime() {
        var configuration = BeaconSession.Configuration(mode: .monitor, regions: [Self.region])
        configuration.controller.pauseAfter = .seconds(5)
        configuration.controller.lowDuty = .ranging  // listens all the time it is on
        var session = BeaconSession(configuration: configuration, start: 0)
        _ = session.receive(Self.advert(0))
        // Heard until 9 s; paused (5 s idle) cycles: on 9–19? The change at 0 pauses at 5 s:
        // window 5–15, off until 35, window 35–45. Last advert at 9 s inside the window.
        _ = session.advance(to: 9 * Self.s)
        _ = session.receive(Self.advert(9 * Self.s))
        let outputs = session.advance(to: 60 * Self.s)
        let exits = outputs.compactMap { if case .region(let e) = $0, e.kind == .exit { e.timestampMicros / Self.s } else { nil } }
        // Seen at 9 s (no change: already inside). Listening 9–15 (6 s), off 15–35, then 4 s more: exit at 39 s.
        #expect(exits == [39])
    }

    @Test func exitCountsOnlyTheScanWindow() {
        var configuration = BeaconSession.Configuration(mode: .monitor, regions: [Self.region])
        configuration.controller.autoPause = false
        var session = BeaconSession(configuration: configuration, start: 0)
        _ = session.receive(Self.advert(0))
        // The monitoring duty listens 500 ms of every 5 s: 10 s of listening take 100 s.
        let outputs = session.advance(to: 120 * Self.s)
        let exits = outputs.compactMap { if case .region(let e) = $0, e.kind == .exit { e.timestampMicros } else { nil } }
        #expect(exits == [100 * Self.s])
    }

    @Test func rangingGivesUpOnAccuracyThatDoesNotImprove() {
        var session = BeaconSession(configuration: .init(mode: .range(interval: .seconds(1)), regions: [Self.region]), start: 0)
        #expect(session.radio == .scanning(.ranging))
        var downAt: Int64?
        for half in 1...40 {
            let t = Int64(half) * Self.s / 2
            let outputs = session.advance(to: t) + session.receive(Self.advert(t))
            if downAt == nil, Self.radios(outputs).contains(where: { $0.1 == .scanning(.monitoring) }) { downAt = t / Self.s }
        }
        #expect(downAt == 6, "five intervals without a better accuracy after the first")
        // A new beacon is a change: back to high duty.
        let outputs = session.advance(to: 20_200_000) + session.receive(Self.advert(20_200_000, minor: 2, rssi: -50))
            + session.advance(to: 21_500_000)
        #expect(Self.radios(outputs).last?.1 == .scanning(.ranging))
    }

    @Test func onceStopsTheRadioWhenSteady() {
        var session = BeaconSession(
            configuration: .init(mode: .rangeOnce(interval: .seconds(1), timeout: .seconds(30)), regions: [Self.region]), start: 0)
        var finished: (Int64, Bool, Int)?
        var radioOff: Int64?
        for tenth in 1...100 where finished == nil {
            let t = Int64(tenth) * 100_000
            for output in session.advance(to: t) + session.receive(Self.advert(t)) {
                if case .finished(let at, let steady, let rows) = output { finished = (at / Self.s, steady, rows.count) }
                if case .radio(let at, .off) = output { radioOff = at / Self.s }
            }
        }
        #expect(finished?.0 == 3 && finished?.1 == true && finished?.2 == 1)
        #expect(radioOff == 3)
        #expect(session.radio == .off)
        #expect(session.receive(Self.advert(11 * Self.s)).isEmpty, "nothing after the fix")
    }

    @Test func onceTimesOutWithoutBeacons() {
        var session = BeaconSession(
            configuration: .init(mode: .rangeOnce(interval: .seconds(1), timeout: .seconds(5)), regions: [Self.region]), start: 0)
        let outputs = session.advance(to: 10 * Self.s)
        #expect(outputs.contains(.finished(at: 5 * Self.s, steady: false, [])))
        #expect(session.radio == .off)
    }

    @Test func policyInputLowersAndStops() {
        var session = BeaconSession(configuration: .init(mode: .range(interval: .seconds(1)), regions: [Self.region]), start: 0)
        #expect(session.setPolicy(.reduced) == [.radio(at: 0, .scanning(ScanDuty.ranging.reduced))])
        #expect(session.setPolicy(.stopped) == [.radio(at: 0, .off)])
        #expect(session.setPolicy(.normal) == [.radio(at: 0, .scanning(.ranging))])
    }

    @Test func longGapsAreCrossedWithoutSteppingEveryTimer() {
        // A capture resuming 7000 years later (still a plausible instant) must not hang.
        let later = BeaconTime.latestMicros - 1
        var monitor = BeaconSession(configuration: .init(mode: .monitor, regions: [Self.region]), start: 0)
        _ = monitor.receive(Self.advert(0))
        let exits = monitor.advance(to: later, inclusive: true).filter { if case .region(let e) = $0 { e.kind == .exit } else { false } }
        #expect(exits.count == 1)
        var range = BeaconSession(configuration: .init(mode: .range(interval: .seconds(1)), regions: [Self.region]), start: 0)
        _ = range.receive(Self.advert(0))
        let reports = range.advance(to: later, inclusive: true).filter { if case .ranging = $0 { true } else { false } }
        #expect(reports.count <= 1002)
        #expect(range.now == later)
    }

    @Test func implausibleTimestampsDoNotMoveTheClock() async throws {
        let transport = RecordingHCITransport()
        await transport.feed(HCIEventRecord(timestampMicros: -5, bytes: []))
        await transport.feed(HCIEventRecord(timestampMicros: 10 * Self.s, bytes: Self.eventBytes()))
        await transport.feed(HCIEventRecord(timestampMicros: Int64.max, bytes: []))
        await transport.feed(HCIEventRecord(timestampMicros: 12 * Self.s, bytes: []))
        var runner = BeaconSessionRunner(
            configuration: .init(mode: .monitor, regions: [Self.region]), start: nil, commander: ScanCommander(transport: transport))
        var events: [RegionEvent] = []
        try await runner.run { if case .region(let e) = $0 { events.append(e) } }
        #expect(events.map(\.timestampMicros) == [10 * Self.s])
        #expect(runner.session?.now == 12 * Self.s)
    }

    // MARK: through the recording transport

    static func run(_ configuration: BeaconSession.Configuration, _ transport: RecordingHCITransport, active: Bool = false) async throws -> [HCICommand] {
        var runner = BeaconSessionRunner(configuration: configuration, start: nil, commander: ScanCommander(transport: transport, active: active))
        try await runner.run { _ in }
        return await transport.commands
    }

    @Test func monitorScansAtLowDutyAndStopsAtTheEnd() async throws {
        let transport = RecordingHCITransport()
        await transport.feed(HCIEventRecord(timestampMicros: 0, bytes: Self.eventBytes()))
        await transport.feed(HCIEventRecord(timestampMicros: 5 * Self.s, bytes: []))
        let commands = try await Self.run(.init(mode: .monitor, regions: [Self.region]), transport)
        #expect(commands == [
            .setScanParameters(active: false, intervalSlots: 8000, windowSlots: 800),
            .setScanEnable(true),
            .setScanEnable(false),
        ])
    }

    @Test func autoPauseDisablesAndReenablesScanning() async throws {
        let transport = RecordingHCITransport()
        for second in stride(from: 0, through: 65, by: 5) {
            await transport.feed(HCIEventRecord(timestampMicros: Int64(second) * Self.s, bytes: []))
        }
        let commands = try await Self.run(.init(mode: .monitor, regions: [Self.region]), transport)
        let enables = commands.filter { $0.ocf == 0x000C }.map { $0.parameters[0] }
        // On at start, off at 40 s (paused), on again at 60 s for the next window, off at the end.
        #expect(enables == [1, 0, 1, 0])
    }

    @Test func rangeOnceTurnsTheRadioOff() async throws {
        let transport = RecordingHCITransport()
        for tenth in 0...100 {
            await transport.feed(HCIEventRecord(timestampMicros: Int64(tenth) * 100_000, bytes: Self.eventBytes()))
        }
        let configuration = BeaconSession.Configuration(mode: .rangeOnce(interval: .seconds(1), timeout: .seconds(30)), regions: [Self.region])
        let commands = try await Self.run(configuration, transport, active: true)
        #expect(commands == [
            .setScanParameters(active: true, intervalSlots: 160, windowSlots: 160),
            .setScanEnable(true),
            .setScanEnable(false),
        ])
        #expect(try await transport.nextEvent() != nil, "the rest of the events were never needed")
    }

    @Test func commandDisallowedFallsBackToExtendedScanning() async throws {
        let transport = RecordingHCITransport(statuses: [0x200B: HCIStatus.commandDisallowed])
        await transport.feed(HCIEventRecord(timestampMicros: 0, bytes: Self.eventBytes()))
        let commands = try await Self.run(.init(mode: .scan), transport)
        #expect(commands.map(\.opcode) == [0x200B, 0x2041, 0x2042, 0x2042])
        #expect(commands[1] == .setExtendedScanParameters(active: false, intervalSlots: 160, windowSlots: 160))
        #expect(commands.last == .setExtendedScanEnable(false))
    }

    @Test func refusedEnableIsAClearErrorAndScanningIsStopped() async throws {
        let transport = RecordingHCITransport(statuses: [0x200C: 0x12])
        await transport.feed(HCIEventRecord(timestampMicros: 0, bytes: []))
        var runner = BeaconSessionRunner(configuration: .init(mode: .scan), start: 0, commander: ScanCommander(transport: transport))
        await #expect(throws: HCITransportError.commandFailed(command: "LE Set Scan Enable", status: 0x12)) {
            try await runner.run { _ in }
        }
    }

    @Test func policySwitchLowersThenStopsARunningScan() async throws {
        let transport = RecordingHCITransport()
        for second in 0...6 { await transport.feed(HCIEventRecord(timestampMicros: Int64(second) * Self.s, bytes: [])) }
        let policy = ScanPolicySwitch()
        var runner = BeaconSessionRunner(configuration: .init(mode: .scan), start: nil, commander: ScanCommander(transport: transport))
        runner.policy = policy
        // The power engine flips the switch while the scan runs (here: at 2 s and 4 s).
        runner.pace = { time in
            if time == 2 * Self.s { policy.set(.reduced) }
            if time == 4 * Self.s { policy.set(.stopped) }
        }
        var radio: [RadioState] = []
        try await runner.run { if case .radio(_, let state) = $0 { radio.append(state) } }
        #expect(radio == [.scanning(.ranging), .scanning(ScanDuty.ranging.reduced), .off])
        let commands = await transport.commands
        #expect(commands == [
            .setScanParameters(active: false, intervalSlots: 160, windowSlots: 160), .setScanEnable(true),
            .setScanEnable(false), .setScanParameters(active: false, intervalSlots: 160, windowSlots: 8), .setScanEnable(true),
            .setScanEnable(false),
        ])
    }

    @Test func givingUpChangesTheScanParameters() async throws {
        let transport = RecordingHCITransport()
        for half in 0...24 {
            await transport.feed(HCIEventRecord(timestampMicros: Int64(half) * Self.s / 2, bytes: Self.eventBytes()))
        }
        let commands = try await Self.run(.init(mode: .range(interval: .seconds(1)), regions: [Self.region]), transport)
        let parameters = commands.filter { $0.ocf == 0x000B }
        #expect(parameters == [
            .setScanParameters(active: false, intervalSlots: 160, windowSlots: 160),
            .setScanParameters(active: false, intervalSlots: 8000, windowSlots: 800),
        ])
        #expect(commands.last == .setScanEnable(false))
    }
}
