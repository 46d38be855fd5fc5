import Testing
@testable import JoulePolicy
@testable import JouleHardware

@Suite struct BeaconRegionTests {
    static let text = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    @Test func specForms() throws {
        let named = try BeaconRegion(spec: "office=\(Self.text.lowercased()):1:2")
        #expect(named.name == "office")
        #expect(named.uuid.description == Self.text)
        #expect(named.major == 1 && named.minor == 2)
        let bare = try BeaconRegion(spec: Self.text)
        #expect(bare.name == Self.text)
        #expect(bare.major == nil && bare.minor == nil)
        let bareMajor = try BeaconRegion(spec: Self.text.lowercased() + ":7")
        #expect(bareMajor.name == Self.text + ":7")
        #expect(bareMajor.major == 7)
    }

    @Test(arguments: [
        "office=", "=\(text)", "office=1234", "office=\(text):70000", "office=\(text):1:x", "office=\(text):1:2:3",
        "office=\(text):", "office=\(text):-1",
    ])
    func badSpecsAreRejected(spec: String) {
        #expect(throws: BeaconRegion.SpecError.self) { try BeaconRegion(spec: spec) }
    }

    @Test func duplicateNamesAreRejected() {
        #expect(throws: BeaconRegion.SpecError.self) { try BeaconRegion.parse(["a=\(Self.text)", "a=\(Self.text):1"]) }
    }

    @Test func matching() throws {
        let region = try BeaconRegion(spec: "r=\(Self.text):1")
        let uuid = region.uuid
        #expect(region.matches(uuid: uuid, major: 1, minor: 9))
        #expect(!region.matches(uuid: uuid, major: 2, minor: 9))
        #expect(!region.matches(uuid: BeaconUUID(high: 0, low: 0), major: 1, minor: 9))
    }

    @Test func monitorEntersAndExitsOnListeningTime() throws {
        let region = try BeaconRegion(spec: "r=\(Self.text)")
        let key = BeaconKey(uuid: region.uuid, major: 1, minor: 1)
        var monitor = RegionMonitor(regions: [region], exitTimeout: .seconds(10))
        _ = monitor.advance(to: 0, listening: true)
        #expect(monitor.observe(key, at: 0).map(\.kind) == [.enter])
        #expect(monitor.observe(key, at: 0).isEmpty, "already inside")
        #expect(monitor.nextExit(listening: true) == 10_000_000)
        #expect(monitor.advance(to: 4_000_000, listening: true).isEmpty)
        // Radio off for a minute: silence does not count.
        #expect(monitor.advance(to: 64_000_000, listening: false).isEmpty)
        #expect(monitor.nextExit(listening: false) == nil)
        #expect(monitor.nextExit(listening: true) == 70_000_000)
        let exits = monitor.advance(to: 75_000_000, listening: true)
        #expect(exits.map(\.kind) == [.exit])
        #expect(exits.first?.timestampMicros == 70_000_000, "the exit carries the moment the timeout elapsed")
        #expect(!monitor.isInside("r"))
    }

    @Test func eventJSONFollowsTheContract() throws {
        let event = RegionEvent(timestampMicros: 1_700_000_000_500_000, kind: .exit, region: try BeaconRegion(spec: "r=\(Self.text):3"))
        #expect(JSONValue.object(event.jsonObject).serialized == "{\"timestamp\":1700000000.5,\"event\":\"exit\",\"region\":\"r\",\"uuid\":\"\(Self.text)\",\"major\":3,\"minor\":null}")
    }
}
