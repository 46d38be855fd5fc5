import Testing

@testable import JouleHardware

@Suite struct RAPLCounterTests {
    static let range: UInt64 = 262_143_328_850

    @Test func accumulatesDeltasAndAveragesTheLastInterval() {
        var counter = RAPLCounter()
        #expect(counter.record(energy: 1_000_000, maxRange: Self.range, at: 100) == .started)
        #expect(counter.totalJoules == 0)
        #expect(counter.averageWatts == nil)
        #expect(counter.record(energy: 6_000_000, maxRange: Self.range, at: 102) == .advanced(microjoules: 5_000_000))
        #expect(counter.averageWatts == 2.5)
        #expect(counter.record(energy: 9_000_000, maxRange: Self.range, at: 103) == .advanced(microjoules: 3_000_000))
        #expect(counter.totalMicrojoules == 8_000_000)
        #expect(counter.totalJoules == 8)
        #expect(counter.averageWatts == 3)
    }

    @Test func aWrapAddsTheRange() {
        var counter = RAPLCounter()
        counter.record(energy: Self.range - 2_000_000, maxRange: Self.range, at: 0)
        #expect(counter.record(energy: 3_000_000, maxRange: Self.range, at: 1) == .wrapped(microjoules: 5_000_000))
        #expect(counter.totalMicrojoules == 5_000_000)
        #expect(counter.averageWatts == 5)
    }

    @Test func aDropWithoutARangeIsAResetNotANegative() {
        var counter = RAPLCounter()
        counter.record(energy: 50_000_000, maxRange: nil, at: 0)
        counter.record(energy: 60_000_000, maxRange: nil, at: 1)
        guard case .reset(let reason) = counter.record(energy: 1_000, maxRange: nil, at: 2) else {
            Issue.record("expected a reset")
            return
        }
        #expect(reason.contains("max_energy_range_uj is unknown"))
        #expect(counter.totalMicrojoules == 10_000_000)
        #expect(counter.averageWatts == nil)
        // The new value is the next baseline.
        #expect(counter.record(energy: 2_001_000, maxRange: nil, at: 3) == .advanced(microjoules: 2_000_000))
        #expect(counter.totalMicrojoules == 12_000_000)
    }

    @Test func valuesThatNoWrapExplainsAreResets() {
        var counter = RAPLCounter()
        counter.record(energy: 10, maxRange: 1_000, at: 0)
        guard case .reset = counter.record(energy: 2_000, maxRange: 1_000, at: 1) else {
            Issue.record("a value above the range must be a reset")
            return
        }
        guard case .reset = counter.record(energy: 5, maxRange: 4_000, at: 2) else {
            Issue.record("a changed range (driver reloaded) must be a reset")
            return
        }
        #expect(counter.totalMicrojoules == 0)
    }

    @Test func anUnknownReadKeepsTheBaseline() {
        var counter = RAPLCounter()
        counter.record(energy: 1_000_000, maxRange: Self.range, at: 0)
        var zone = RAPLZone(id: "intel-rapl:0", path: "/sys/class/powercap/intel-rapl:0", parentID: nil, name: "package-0")
        zone.energyUnknown = .readFailed(path: zone.path + "/energy_uj", errno: .noData)
        #expect(counter.record(zone, at: 1) == .unknown(zone.energyUnknown))
        #expect(counter.averageWatts == nil)
        #expect(counter.record(energy: 5_000_000, maxRange: Self.range, at: 2) == .advanced(microjoules: 4_000_000))
        #expect(counter.averageWatts == 2)
    }

    @Test func aClockThatDidNotAdvanceCountsEnergyButNoWatts() {
        var counter = RAPLCounter()
        counter.record(energy: 1_000_000, maxRange: Self.range, at: 5)
        #expect(counter.record(energy: 2_000_000, maxRange: Self.range, at: 5) == .advanced(microjoules: 1_000_000))
        #expect(counter.totalJoules == 1)
        #expect(counter.averageWatts == nil)
    }
}

@Suite struct RAPLMeterTests {
    /// The fixture's first read, then a second two seconds later in which package-0 (47.8 J
    /// below its range in the fixture) has wrapped: the wrap case of issue 15 §5.
    @Test func fixtureWrapBetweenTwoReads() throws {
        let copy = try RAPLFixtures.Copy(RAPLFixtures.xps)
        let reader = RAPLReader(root: copy.root)
        var meter = RAPLMeter()
        let first = try reader.read()
        #expect(meter.record(first, at: 1000).values.allSatisfy { $0 == .started })

        // 2 s later: package +60 J across the wrap, core +30 J, psys +70 J.
        let firstPackage: UInt64 = 262_095_512_433
        let secondPackage = firstPackage + 60_000_000 - RAPLFixtures.intelRange
        try copy.write("intel-rapl:0", "energy_uj", "\(secondPackage)\n")
        try copy.write("intel-rapl:0:0", "energy_uj", "\(98_734_113_907 + 30_000_000)\n")
        try copy.write("intel-rapl:1", "energy_uj", "\(187_366_905_114 + 70_000_000)\n")
        let second = try reader.read()
        #expect(second.zone("intel-rapl:0")!.energyMicrojoules! < first.zone("intel-rapl:0")!.energyMicrojoules!)

        let steps = meter.record(second, at: 1002)
        #expect(steps["intel-rapl:0"] == .wrapped(microjoules: 60_000_000))
        #expect(steps["intel-rapl:0:0"] == .advanced(microjoules: 30_000_000))
        #expect(steps["intel-rapl:0:1"] == .advanced(microjoules: 0))
        #expect(meter.joules(zone: "intel-rapl:0") == 60)
        #expect(meter.watts(zone: "intel-rapl:0") == 30)
        // psys is preferred for the host, and nothing is added to it.
        #expect(meter.host == RAPLHostDomains(basis: .psys, zoneIDs: ["intel-rapl:1"]))
        #expect(meter.hostWatts == 35)
        #expect(meter.hostJoules == 70)
    }

    @Test func aVanishedZoneKeepsItsTotal() {
        var meter = RAPLMeter()
        let zone = RAPLZone(id: "intel-rapl:0", path: "/sys/class/powercap/intel-rapl:0", parentID: nil, name: "package-0",
                            energyMicrojoules: 1_000_000, maxRangeMicrojoules: 10_000_000)
        var later = zone
        later.energyMicrojoules = 4_000_000
        meter.record(RAPLReading(zones: [zone]), at: 0)
        meter.record(RAPLReading(zones: [later]), at: 1)
        #expect(meter.hostWatts == 3)
        let steps = meter.record(RAPLReading(), at: 2)
        #expect(steps["intel-rapl:0"] == .unknown(nil))
        #expect(meter.joules(zone: "intel-rapl:0") == 3)
        #expect(meter.host == nil && meter.hostWatts == nil)
    }
}

@Suite struct RAPLHostDomainsTests {
    static func zone(_ id: String, _ name: String, parent: String? = nil, energy: UInt64? = 1) -> RAPLZone {
        RAPLZone(id: id, path: "/sys/class/powercap/" + id, parentID: parent, name: name, energyMicrojoules: energy, maxRangeMicrojoules: 100)
    }

    @Test func psysIsPreferred() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.xps)).read()
        let host = try #require(RAPLHostDomains.select(from: reading))
        #expect(host.zoneIDs == ["intel-rapl:1"])
        #expect(host.source == "rapl:psys")
    }

    @Test func packageAndItsCoreAreNeverAdded() throws {
        let reading = try RAPLReader(root: RAPLFixtures.root(RAPLFixtures.ryzenDesktop)).read()
        let host = try #require(RAPLHostDomains.select(from: reading))
        #expect(host.zoneIDs == ["intel-rapl:0"])
        #expect(host.source == "rapl:package")

        // A metered desktop: package +40 J, core +25 J over 2 s is 20 W, not 32.5 W.
        var meter = RAPLMeter()
        meter.record(reading, at: 0)
        var later = reading
        later.zones[0].energyMicrojoules! += 40_000_000
        later.zones[1].energyMicrojoules! += 25_000_000
        meter.record(later, at: 2)
        #expect(meter.hostWatts == 20)
    }

    @Test func childrenAreNeverAddedEvenWithoutPsys() {
        let reading = RAPLReading(zones: [
            Self.zone("intel-rapl:0", "package-0"), Self.zone("intel-rapl:0:0", "core", parent: "intel-rapl:0"),
            Self.zone("intel-rapl:0:1", "uncore", parent: "intel-rapl:0"), Self.zone("intel-rapl:0:2", "dram", parent: "intel-rapl:0"),
        ])
        #expect(RAPLHostDomains.select(from: reading) == RAPLHostDomains(basis: .package, zoneIDs: ["intel-rapl:0"]))
    }

    @Test func twoSocketsAndTopLevelDramAreSummed() {
        let reading = RAPLReading(zones: [
            Self.zone("intel-rapl:0", "package-0"), Self.zone("intel-rapl:0:0", "dram", parent: "intel-rapl:0"),
            Self.zone("intel-rapl:1", "package-1"), Self.zone("intel-rapl:2", "dram"),
        ])
        #expect(RAPLHostDomains.select(from: reading) == RAPLHostDomains(basis: .package, zoneIDs: ["intel-rapl:0", "intel-rapl:1", "intel-rapl:2"]))
    }

    @Test func aMissingPackageMeansNoFigure() {
        let reading = RAPLReading(zones: [Self.zone("intel-rapl:0", "package-0"), Self.zone("intel-rapl:1", "package-1", energy: nil)])
        #expect(RAPLHostDomains.select(from: reading) == nil)
    }
}
