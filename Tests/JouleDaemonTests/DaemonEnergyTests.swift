import Foundation
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleDaemon
import JouleTesting
import Testing

@Suite struct DaemonEnergyTests {
    @Test func snapshotsCarryZonesUnitsAndWattsMeasuredOnDemand() async throws {
        let tree = try EnergyTree(EnergyTree.xps)
        try tree.energy("intel-rapl:1", EnergyTree.intelRange - 12_000_000)
        try tree.process(100, "editor", utime: 50, switches: 50, cgroup: EnergyTree.editorScope)
        let clock = ManualClock(now: 5000)
        let energy = DaemonEnergy(source: tree.source, root: FileRoot(tree.path), procRoot: tree.path, clock: clock)
        let first = await energy.snapshot()
        #expect(first.source == .rapl && first.origin == "rapl:psys" && first.systemWatts == nil)
        #expect(first.timestamp == 5000)
        #expect(first.domains.map(\.name) == ["package-0", "package-0/core", "package-0/uncore", "package-0/dram", "psys"])
        #expect(first.domains.allSatisfy { $0.joules == 0 })
        #expect(first.unitJoules.isEmpty)

        // Asked again at once (two scrapers): the same snapshot, nothing re-read.
        try tree.energy("intel-rapl:1", 8_000_000)
        clock.advance(by: .milliseconds(200))
        #expect(await energy.snapshot() == first)

        try tree.node(busy: 1100, idle: 9300)
        try tree.process(100, "editor", utime: 150, switches: 50, cgroup: EnergyTree.editorScope)
        clock.advance(by: .milliseconds(1800))
        let second = await energy.snapshot()
        #expect(second.timestamp == 5002)
        #expect(abs(try #require(second.systemWatts) - 10) < 1e-9)
        let psys = try #require(second.domains.first { $0.name == "psys" })
        #expect(abs(psys.joules - 20) < 1e-9)
        // 20 J × a quarter busy, all of the busy second the editor's.
        #expect(second.unitJoules.keys.sorted() == ["app-gnome-editor.scope"])
        #expect(abs(try #require(second.unitJoules["app-gnome-editor.scope"]) - 5) < 1e-9)
    }

    @Test func rootOnlyZonesGiveNoDomainsRatherThanZeros() async throws {
        let tree = try EnergyTree(EnergyTree.xps)
        let energy = DaemonEnergy(source: tree.source, root: FileRoot(tree.path), procRoot: tree.path, clock: ManualClock(), readRAPL: EnergyTree.unprivileged)
        let snapshot = await energy.snapshot()
        #expect(snapshot.domains.isEmpty)
        #expect(snapshot.source == .battery)
        #expect(abs(try #require(snapshot.systemWatts) - 5.836) < 1e-9)
    }

    @Test func aFailedReadKeepsTotalsAndMakesPowerUnknown() async throws {
        let tree = try EnergyTree(EnergyTree.xps)
        let clock = ManualClock()
        let logged = LogLines()
        let energy = DaemonEnergy(source: tree.source, root: FileRoot(tree.path), procRoot: tree.path, clock: clock, log: { logged.append($0) })
        let first = await energy.snapshot()
        try FileManager.default.removeItem(atPath: tree.path + "/proc/stat")
        clock.advance(by: .seconds(5))
        let failed = await energy.snapshot()
        #expect(failed.systemWatts == nil && failed.domains == first.domains && failed.source == first.source)
        #expect(logged.all.contains { $0.contains("proc/stat") })
    }

    @Test func theDaemonOwnsOneUnlessGivenAnother() throws {
        let options = JouleDaemon.Options(
            bus: .session, configPath: "/nonexistent/joule.conf", source: SysfsDeviceSource(root: EnergyTree.fixtures + "/" + EnergyTree.xps),
            procRoot: "/", knobRoot: .live, stateDirectory: nil, runtimeDirectory: nil, environment: [:], uid: 0)
        #expect(try JouleDaemon(options: options, log: { _ in }).energy is DaemonEnergy)
        var injected = options
        injected.energySnapshots = FixedEnergy(nil)
        #expect(try JouleDaemon(options: injected, log: { _ in }).energy is FixedEnergy)
    }
}

