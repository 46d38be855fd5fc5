@testable import JouleHardware
@testable import JouleWorkloads
import JouleTesting
import Testing

/// What the daemon's region monitors show `/metrics`: entry and RSSI through the real runner
/// on the recording transport, and the gauges' own rules.
@Suite struct BeaconRegionGaugesTests {
    static let s = BeaconSessionTests.s
    static let other = BeaconRegion(name: "lab", uuid: BeaconSessionTests.uuid, major: 9)

    @Test func theRunnerRecordsEntryAndRSSI() async throws {
        let transport = RecordingHCITransport()
        for (second, rssi) in [(0, -60), (1, -62), (2, -64), (3, -66), (4, -68), (5, -70)] {
            await transport.feed(HCIEventRecord(timestampMicros: Int64(second) * Self.s, bytes: BeaconSessionTests.eventBytes(rssi: Int8(rssi))))
        }
        let regions = [BeaconSessionTests.region, Self.other]
        let gauges = BeaconRegionGauges(regions: regions)
        var runner = BeaconSessionRunner(
            configuration: .init(mode: .monitor, regions: regions), start: nil, commander: ScanCommander(transport: transport))
        runner.gauges = gauges
        var entries: [String] = []
        try await runner.run { output in
            if case .region(let event) = output { entries.append("\(event.kind) \(event.region.name)") }
        }
        #expect(entries == ["enter office"])
        // Six samples: a 10 % trim drops none; the mean is -65 dBm. The lab region (major 9)
        // heard nothing.
        #expect(gauges.readings(now: 5 * Self.s) == [
            MetricsSample.BeaconRegionReading(name: "office", inside: true, rssiDBm: -65),
            MetricsSample.BeaconRegionReading(name: "lab", inside: false, rssiDBm: nil),
        ])
        // Samples leave the 20 s window: inside still (no exit yet), RSSI unknown.
        #expect(gauges.readings(now: 30 * Self.s).first == MetricsSample.BeaconRegionReading(name: "office", inside: true, rssiDBm: nil))
    }

    @Test func anExitForgetsTheRSSI() {
        let region = BeaconSessionTests.region
        let gauges = BeaconRegionGauges(regions: [region])
        let key = BeaconKey(uuid: BeaconSessionTests.uuid, major: 1, minor: 1)
        gauges.record(RegionEvent(timestampMicros: 0, kind: .enter, region: region))
        gauges.heard(key, rssi: -71, at: Self.s)
        #expect(gauges.readings(now: Self.s) == [MetricsSample.BeaconRegionReading(name: "office", inside: true, rssiDBm: -71)])
        gauges.record(RegionEvent(timestampMicros: 2 * Self.s, kind: .exit, region: region))
        #expect(gauges.readings(now: 2 * Self.s) == [MetricsSample.BeaconRegionReading(name: "office", inside: false, rssiDBm: nil)])
        // A region the monitor does not have changes nothing.
        gauges.record(RegionEvent(timestampMicros: 3 * Self.s, kind: .enter, region: Self.other))
        #expect(gauges.readings(now: 3 * Self.s).map(\.inside) == [false])
    }
}
