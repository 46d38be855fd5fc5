import Testing
@testable import JouleWire
@testable import JouleHardware
@testable import JouleWorkloads

@Suite struct BeaconRegionTests {
    static let text = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"

    @Test func specForms() throws {
        let named = try BeaconRegion(spec: "office=\(Self.text.lowercased()):1:2")
        #expect(named.name == "office")
        #expect(named.identity == .proximity(uuid: Self.uuid, major: 1, minor: 2))
        let bare = try BeaconRegion(spec: Self.text)
        #expect(bare.name == Self.text)
        #expect(bare.identity == .proximity(uuid: Self.uuid, major: nil, minor: nil))
        let bareMajor = try BeaconRegion(spec: Self.text.lowercased() + ":7")
        #expect(bareMajor.name == Self.text + ":7")
        #expect(bareMajor.identity == .proximity(uuid: Self.uuid, major: 7, minor: nil))
    }

    static let uuid = BeaconUUID(text)!
    /// The Eddystone-UID beacon in hw-fixtures/bluetooth/all-kinds-*.
    static let namespace = "edd1ebeac04e5defa017"
    static let instance = "0badc0ffee01"

    /// Eddystone-UID regions, as the AltBeacon library's Region(id1 = namespace, id2 = instance).
    @Test func eddystoneSpecForms() throws {
        let namespace = try #require(BeaconIdentifier(hex: Self.namespace, count: 10))
        let instance = try #require(BeaconIdentifier(hex: Self.instance, count: 6))
        let named = try BeaconRegion(spec: "door=0x\(Self.namespace.uppercased()):\(Self.instance)")
        #expect(named.name == "door")
        #expect(named.identity == .eddystone(namespace: namespace, instance: instance))
        let bare = try BeaconRegion(spec: Self.namespace)
        #expect(bare.name == Self.namespace)
        #expect(bare.identity == .eddystone(namespace: namespace, instance: nil))
        #expect(bare.identifierText == Self.namespace)
        #expect(named.identifierText == "\(Self.namespace) \(Self.instance)")
    }

    @Test(arguments: [
        ("door=edd1ebeac04e5defa01", "neither a UUID"), ("door=edd1ebeac04e5defa017:0badc0ffee0", "instance"),
        ("door=edd1ebeac04e5defa017:0badc0ffee0g", "instance"), ("door=edd1ebeac04e5defa017:0badc0ffee01:1", "too many"),
        ("door=edd1ebeac04e5defa017:", "instance"), ("door=xdd1ebeac04e5defa017", "neither a UUID"),
    ])
    func badEddystoneSpecsSayWhy(spec: String, reason: String) {
        #expect {
            try BeaconRegion(spec: spec)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains(spec)
        }
    }

    @Test func eddystoneMatching() throws {
        let namespace = try #require(BeaconIdentifier(hex: Self.namespace, count: 10))
        let instance = try #require(BeaconIdentifier(hex: Self.instance, count: 6))
        let other = try #require(BeaconIdentifier(hex: "0badc0ffee02", count: 6))
        let any = try BeaconRegion(spec: Self.namespace)
        let one = try BeaconRegion(spec: "\(Self.namespace):\(Self.instance)")
        #expect(any.matches(.eddystone(namespace: namespace, instance: other)))
        #expect(one.matches(.eddystone(namespace: namespace, instance: instance)))
        #expect(!one.matches(.eddystone(namespace: namespace, instance: other)))
        // Kinds never cross: a proximity region never matches an Eddystone beacon, nor back.
        #expect(!any.matches(BeaconKey(uuid: Self.uuid, major: 0, minor: 0)))
        #expect(!(try BeaconRegion(spec: Self.text)).matches(.eddystone(namespace: namespace, instance: instance)))
    }

    /// Eddystone-UID carries its power at 0 m; ranging takes it at 1 m, 41 dB lower.
    @Test func anEddystoneFrameIsKeyedWithItsOneMetrePower() throws {
        let namespace = try #require(BeaconIdentifier(hex: Self.namespace, count: 10))
        let instance = try #require(BeaconIdentifier(hex: Self.instance, count: 6))
        let frame = BeaconFrame.eddystoneUID(EddystoneUID(txPower: -20, namespace: namespace, instance: instance))
        let keyed = try #require(BeaconKey.of(frame))
        #expect(keyed.key == .eddystone(namespace: namespace, instance: instance))
        #expect(keyed.txPower == -61)
        let ranged = RangedBeacon(
            timestampMicros: 1_700_000_000_000_000, region: "door", key: keyed.key, rssi: -61, accuracyM: 1, proximity: .near)
        #expect(
            JSONValue.object(ranged.jsonObject).serialized
                == "{\"timestamp\":1700000000,\"region\":\"door\",\"namespace\":\"\(Self.namespace)\",\"instance\":\"\(Self.instance)\",\"rssi\":-61,\"accuracyM\":1,\"proximity\":\"near\"}")
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
        let uuid = Self.uuid
        #expect(region.matches(BeaconKey(uuid: uuid, major: 1, minor: 9)))
        #expect(!region.matches(BeaconKey(uuid: uuid, major: 2, minor: 9)))
        #expect(!region.matches(BeaconKey(uuid: BeaconUUID(high: 0, low: 0), major: 1, minor: 9)))
    }

    @Test func monitorEntersAndExitsOnListeningTime() throws {
        let region = try BeaconRegion(spec: "r=\(Self.text)")
        let key = BeaconKey(uuid: Self.uuid, major: 1, minor: 1)
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

    @Test func eddystoneEventJSONAndHookCarryTheNamespace() throws {
        let event = RegionEvent(timestampMicros: 1_700_000_000_500_000, kind: .enter, region: try BeaconRegion(spec: "door=\(Self.namespace)"))
        #expect(
            JSONValue.object(event.jsonObject).serialized
                == "{\"timestamp\":1700000000.5,\"event\":\"enter\",\"region\":\"door\",\"namespace\":\"\(Self.namespace)\",\"instance\":null}")
    }
}
