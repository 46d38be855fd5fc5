import Testing
@testable import JouleHardware
@testable import JouleWorkloads

@Suite struct BeaconRangingTests {
    @Test func filterTrimsTenPercentEachEnd() {
        var filter = RunningAverageRSSIFilter()
        for (i, rssi) in [-60, -60, -60, -60, -30, -60, -60, -60, -60, -90].enumerated() {
            filter.add(rssi, at: Int64(i) * 1_000_000)
        }
        #expect(filter.value(now: 10_000_000) == -60)
        var small = RunningAverageRSSIFilter()
        for (i, rssi) in [-50, -70, -60].enumerated() { small.add(rssi, at: Int64(i)) }
        #expect(small.value(now: 3) == -60, "under ten samples nothing is trimmed")
    }

    @Test func filterForgetsSamplesOlderThanTheWindow() {
        var filter = RunningAverageRSSIFilter(window: .seconds(20))
        filter.add(-90, at: 0)
        filter.add(-60, at: 10_000_000)
        #expect(filter.value(now: 19_999_999) == -75)
        #expect(filter.value(now: 20_000_000) == -60, "a sample exactly 20 s old has left the window")
        #expect(filter.value(now: 31_000_000) == nil)
    }

    @Test func distanceFormula() throws {
        let model = DistanceModel()
        let atOneMetre = try #require(model.distance(rssi: -59, txPower: -59))
        #expect(abs(atOneMetre - (0.42093 + 0.54992)) < 1e-12)
        let near = try #require(model.distance(rssi: -30, txPower: -59))
        #expect(abs(near - pow(30.0 / 59.0, 10)) < 1e-15)
        let far = try #require(model.distance(rssi: -80, txPower: -59))
        #expect(abs(far - (0.42093 * pow(80.0 / 59.0, 6.9476) + 0.54992)) < 1e-12)
        #expect(model.distance(rssi: nil, txPower: -59) == nil)
        #expect(model.distance(rssi: 0, txPower: -59) == nil)
        #expect(model.distance(rssi: -60, txPower: 0) == nil)
        let custom = DistanceModel(a: 1, b: 2, c: 0)
        #expect(custom.distance(rssi: -118, txPower: -59) == 4)
    }

    @Test func proximityThresholds() {
        #expect(Proximity(accuracyM: 0.49) == .immediate)
        #expect(Proximity(accuracyM: 0.5) == .near)
        #expect(Proximity(accuracyM: 2.99) == .near)
        #expect(Proximity(accuracyM: 3) == .far)
        #expect(Proximity(accuracyM: nil) == .unknown)
    }

    @Test func rangerSortsNearestFirstAndKeepsUnknownLast() throws {
        let uuid = try #require(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        var ranger = BeaconRanger(regions: [BeaconRegion(name: "r", uuid: uuid)])
        ranger.observe(BeaconKey(uuid: uuid, major: 1, minor: 1), txPower: -59, rssi: -80, at: 0)
        ranger.observe(BeaconKey(uuid: uuid, major: 1, minor: 2), txPower: -59, rssi: -50, at: 0)
        ranger.observe(BeaconKey(uuid: uuid, major: 1, minor: 3), txPower: -59, rssi: nil, at: 0)
        ranger.observe(BeaconKey(uuid: BeaconUUID(high: 1, low: 1), major: 1, minor: 4), txPower: -59, rssi: -40, at: 0)
        let rows = ranger.report(at: 1_000_000)
        #expect(rows.map(\.key) == [2, 1, 3].map { BeaconKey(uuid: uuid, major: 1, minor: $0) })
        #expect(rows.last?.proximity == .unknown)
        #expect(rows.last?.rssi == nil)
        #expect(ranger.report(at: 20_000_000).isEmpty, "beacons unheard for the whole window are dropped")
    }
}

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BeaconTrackerTests {
    @Test func forgetsBeaconsUnheardForTheWindowAndKeepsTheLatestInfo() throws {
        var tracker = BeaconTracker<String, String>(window: .seconds(10))
        tracker.observe("b", info: "first", txPower: -59, rssi: -59, at: 0)
        tracker.observe("a", info: "only", txPower: nil, rssi: -70, at: 5_000_000)
        tracker.observe("b", info: "second", txPower: -59, rssi: nil, at: 6_000_000)
        let now = tracker.estimates(at: 9_000_000)
        #expect(now.map(\.key) == ["a", "b"], "key order")
        #expect(now[0].accuracyM == nil && now[0].proximity == .unknown, "no calibration, no distance")
        #expect(now[1].info == "second")
        #expect(now[1].rssi == -59)
        #expect(tracker.estimates(at: 15_000_000).map(\.key) == ["b"])
        #expect(tracker.estimates(at: 16_000_000).isEmpty)
    }
}
