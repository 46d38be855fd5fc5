import Foundation
import JouleHardware
import JouleEnergy
import JouleTesting
import Testing

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
