import Foundation
import JouleHardware
import JoulePolicy
import JouleTesting
import Testing

/// A fixture machine's sys/ and proc/stat copied into a writable tree, with processes of our
/// own: RAPL, the batteries and /proc move only when a test writes them.
final class EnergyTree {
    let tree: ProcTree
    var path: String { tree.path }
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("hw-fixtures").path
    static let xps = "dell-xps-13-low-battery-discharging"
    static let intelRange: UInt64 = 262_143_328_850

    init(_ machine: String) throws {
        tree = try ProcTree()
        try FileManager.default.copyItem(atPath: Self.fixtures + "/\(machine)/sys", toPath: tree.path + "/sys")
        try node(busy: 1000, idle: 9000)
    }

    func node(busy: UInt64, idle: UInt64) throws {
        try tree.write("proc/stat", "cpu  \(busy) 0 0 \(idle) 0 0 0 0 0 0\ncpu0 \(busy) 0 0 \(idle) 0 0 0 0 0 0\n")
    }

    func energy(_ zone: String, _ microjoules: UInt64) throws {
        try tree.write("sys/class/powercap/\(zone)/energy_uj", "\(microjoules)\n")
    }

    func process(_ pid: Int32, _ comm: String, utime: UInt64, switches: UInt64, cgroup: String) throws {
        if FileManager.default.fileExists(atPath: tree.path + "/proc/\(pid)") {
            try tree.update(pid: pid, comm: comm, utime: utime)
            try tree.write("proc/\(pid)/status", ProcTree.statusText(pid: pid, comm: comm, voluntarySwitches: switches))
        } else {
            try tree.addProcess(pid: pid, comm: comm, utime: utime, cgroup: cgroup, voluntarySwitches: switches)
        }
    }

    var source: SysfsDeviceSource { SysfsDeviceSource(root: path) }

    /// A meter over this tree (clock ticks of 1/100 s, as the stat lines are written).
    func meter(_ clock: any JouleClock, readRAPL: (@Sendable (String) throws(HardwareError) -> [UInt8])? = nil) -> ProcessEnergyMeter {
        ProcessEnergyMeter(source: source, root: FileRoot(path), procRoot: path, clock: clock, readRAPL: readRAPL, ticksPerSecond: 100)
    }

    /// A Raspberry Pi (nothing measures power) running one process.
    static func pi(_ pid: Int32, _ comm: String, cgroup: String) throws -> (EnergyTree, ManualClock, ProcessEnergyMeter) {
        let tree = try EnergyTree("raspberry-pi-4-no-battery")
        try tree.process(pid, comm, utime: 0, switches: 0, cgroup: cgroup)
        let clock = ManualClock()
        return (tree, clock, tree.meter(clock))
    }

    /// What an unprivileged process reads since CVE-2020-8694: EACCES on every `energy_uj`.
    static let unprivileged: @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
        if path.hasSuffix("/energy_uj") { throw HardwareError(operation: "open", path: path, errno: .permissionDenied) }
        return try FileSystem.readBytes(path)
    }

    static let editorScope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-editor-4242.scope"
}

@Suite struct ProcessEnergyMeterTests {
    /// Baseline: psys 12 J below its range. Then 2 s in which the counter wraps (20 J: 10 W),
    /// a quarter of the node's ticks are busy (1 s of CPU), the editor runs 0.6 s and the
    /// indexer 0.2 s.
    static func wrapped(readRAPL: (@Sendable (String) throws(HardwareError) -> [UInt8])? = nil) async throws
        -> (EnergyTree, ManualClock, ProcessEnergyMeter, ProcessEnergySample, ProcessEnergySample)
    {
        let tree = try EnergyTree(EnergyTree.xps)
        try tree.energy("intel-rapl:1", EnergyTree.intelRange - 12_000_000)
        try tree.process(100, "editor", utime: 50, switches: 50, cgroup: EnergyTree.editorScope)
        try tree.process(200, "indexer", utime: 10, switches: 10, cgroup: "/system.slice/indexer.service")
        let clock = ManualClock(now: 1000)
        let meter = tree.meter(clock, readRAPL: readRAPL)
        let baseline = try await meter.sample()
        try tree.energy("intel-rapl:1", 8_000_000)
        try tree.node(busy: 1100, idle: 9300)
        try tree.process(100, "editor", utime: 110, switches: 90, cgroup: EnergyTree.editorScope)
        try tree.process(200, "indexer", utime: 30, switches: 10, cgroup: "/system.slice/indexer.service")
        clock.advance(by: .seconds(2))
        return (tree, clock, meter, baseline, try await meter.sample())
    }

    @Test func raplThroughAWrapIsSplitByCPUTime() async throws {
        let (tree, clock, meter, baseline, sample) = try await Self.wrapped()
        #expect(baseline.source.kind == .rapl && baseline.source.origin == "rapl:psys" && baseline.source.passedOver.isEmpty)
        #expect(baseline.systemWatts == nil && baseline.processes.isEmpty)

        #expect(sample.intervalSeconds == 2)
        let system = try #require(sample.systemWatts)
        #expect(abs(system - 10) < 1e-9)
        #expect(sample.nodeCPUPercent == 25)
        #expect(abs(try #require(sample.activeWatts) - 2.5) < 1e-9)
        #expect(abs(try #require(sample.idleWatts) - 7.5) < 1e-9)
        let rows = Dictionary(uniqueKeysWithValues: sample.processes.map { ($0.name, $0) })
        let editor = try #require(rows["editor"])
        #expect(editor.unit == "app-gnome-editor.scope" && editor.pid == 100)
        #expect(abs(try #require(editor.watts) - 1.5) < 1e-9)  // 5 J active × 0.6 s ÷ 1 s busy, over 2 s
        #expect(abs(try #require(editor.joules) - 3) < 1e-9)
        #expect(editor.cpuPercent == 30 && editor.wakeupsPerSecond == 20)
        let indexer = try #require(rows["indexer"])
        #expect(indexer.unit == "indexer.service" && indexer.wakeupsPerSecond == 0)
        #expect(abs(try #require(indexer.joules) - 1) < 1e-9)
        #expect(abs(try #require(sample.unattributedWatts) - 0.5) < 1e-9)
        #expect(abs(try #require(sample.unitJoules["app-gnome-editor.scope"]) - 3) < 1e-9)

        // Energy since start adds up over intervals.
        try tree.energy("intel-rapl:1", 18_000_000)
        try tree.node(busy: 1200, idle: 9300)
        try tree.process(100, "editor", utime: 210, switches: 90, cgroup: EnergyTree.editorScope)
        clock.advance(by: .seconds(1))
        let next = try await meter.sample()
        let again = try #require(next.processes.first { $0.pid == 100 })
        #expect(abs(try #require(again.joules) - 13) < 1e-9)  // 3 J + all 10 J: every tick busy, all the editor's
        #expect(abs(try #require(next.idleWatts)) < 1e-9)
    }

    @Test func rootOnlyRAPLIsPassedOverForTheBattery() async throws {
        let (_, _, _, baseline, sample) = try await Self.wrapped(readRAPL: EnergyTree.unprivileged)
        #expect(baseline.source.kind == .battery)
        #expect(baseline.source.passedOver.count == 1)
        #expect(baseline.source.passedOver.first?.hasPrefix("rapl: /sys/class/powercap/intel-rapl:") == true)
        #expect(baseline.source.passedOver.first?.contains("root-only") == true)
        // The battery's rate is known at once; over the interval, the mean of both readings.
        #expect(abs(try #require(baseline.systemWatts) - 5.836) < 1e-9)
        #expect(abs(try #require(sample.systemWatts) - 5.836) < 1e-9)
        let editor = try #require(sample.processes.first { $0.name == "editor" })
        #expect(abs(try #require(editor.joules) - 5.836 * 2 * 0.25 * 0.6) < 1e-9)
    }

    @Test func nothingToMeasureMeansAModelWithScores() async throws {
        let (tree, clock, meter) = try EnergyTree.pi(7, "radio", cgroup: "/system.slice/radio.service")
        _ = try await meter.sample()
        try tree.process(7, "radio", utime: 5, switches: 300, cgroup: "/system.slice/radio.service")
        try tree.node(busy: 1010, idle: 9090)
        clock.advance(by: .seconds(1))
        let sample = try await meter.sample()
        #expect(sample.source.kind == .model)
        #expect(sample.source.passedOver == ["rapl: no RAPL zones under /sys/class/powercap", "battery: no system battery"])
        #expect(sample.systemWatts == nil && sample.activeWatts == nil)
        let radio = try #require(sample.processes.first)
        #expect(radio.watts == nil && radio.joules == nil)
        #expect(radio.energyImpact.map { abs($0 - (5 + 0.02 * 300)) < 1e-9 } == true)
    }

    @Test func aProcessMovedIntoItsScopeAfterStartIsRelabelled() async throws {
        // Seen first still in the launcher's cgroup, as between fork and the move.
        let (tree, clock, meter) = try EnergyTree.pi(9, "app", cgroup: "/user.slice/user-1000.slice/user@1000.service/app.slice/launcher.service")
        _ = try await meter.sample()
        try tree.tree.write("proc/9/cgroup", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-foot-99.scope\n")
        clock.advance(by: .seconds(1))
        #expect(try await meter.sample().processes.first?.unit == "app-foot.scope")
    }

    @Test func unreadableProcIsAnErrorNamingIt() async throws {
        let tree = try EnergyTree("raspberry-pi-4-no-battery")
        try FileManager.default.removeItem(atPath: tree.path + "/proc/stat")
        let meter = tree.meter(ManualClock())
        await #expect(throws: HardwareError.self) { try await meter.sample() }
        do {
            _ = try await meter.sample()
        } catch {
            #expect(error.description.contains(tree.path + "/proc/stat"))
        }
    }

    @Test func runSamplesOnAFixedScheduleAfterABaseline() async throws {
        let (tree, clock, meter) = try EnergyTree.pi(7, "radio", cgroup: "/system.slice/radio.service")
        defer { withExtendedLifetime(tree) {} }  // the tree's directory goes with it
        let seen = SampleLog()
        let run = Task { try await meter.run(every: .seconds(2), count: 2) { await seen.add($0) } }
        for _ in 0..<2 {
            // Real sleeps while the engine gets to its own (a bound, not a timing claim).
            let deadline = Date(timeIntervalSinceNow: 20)
            while clock.sleeperCount == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .seconds(2))
        }
        try await run.value
        let intervals = await seen.samples.map(\.intervalSeconds)
        #expect(intervals == [2, 2])
    }
}

actor SampleLog {
    var samples: [ProcessEnergySample] = []
    func add(_ sample: ProcessEnergySample) { samples.append(sample) }
}

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

