import JouleHardware
import JouleEnergy
import Testing

@Suite struct ProcessEnergyAccountingTests {
    static let rapl = PowerSource(kind: .rapl, rapl: RAPLHostDomains(basis: .psys, zoneIDs: ["intel-rapl:1"]))
    static let model = PowerSource(kind: .model, passedOver: ["rapl: no RAPL zones under /sys/class/powercap"])

    static func process(_ pid: Int32, cpu seconds: Double, switches: UInt64?) -> ProcessCPUSample {
        ProcessCPUSample(
            pid: pid, startTimeTicks: 1000, cpuNanoseconds: UInt64((seconds * 1e9).rounded()), state: .sleeping, ppid: 1, flags: 0,
            threadCount: 1, voluntarySwitches: switches)
    }

    static func reading(
        at time: Double, _ processes: [(ProcessCPUSample, String)], busyTicks: UInt64, idleTicks: UInt64,
        source: PowerSource = rapl, watts: Double?
    ) -> ProcessEnergyAccounting.Reading {
        ProcessEnergyAccounting.Reading(
            time: time, processes: processes.map(\.0),
            labels: processes.map { .init(name: "p\($0.0.pid)", unit: $0.1) },
            node: CPUTimes(user: busyTicks, nice: 0, system: 0, idle: idleTicks), source: source, hostWatts: watts)
    }

    @Test func activePowerIsSplitByCPUTimeAndEverythingAddsUpToTheHost() throws {
        var accounting = ProcessEnergyAccounting(ticksPerSecond: 100)
        let baseline = accounting.record(Self.reading(
            at: 0, [(Self.process(10, cpu: 0, switches: 100), "a.service"), (Self.process(11, cpu: 0, switches: 5), "b.service")],
            busyTicks: 0, idleTicks: 0, watts: nil))
        #expect(baseline.intervalSeconds == nil && baseline.processes.isEmpty && baseline.systemWatts == nil)

        // 2 s at 10 W: 20 J. Half the node's ticks were busy (2 s of CPU), so 10 J are active.
        // p12 started within the interval: all its CPU time and switches are new.
        let sample = accounting.record(Self.reading(
            at: 2,
            [(Self.process(10, cpu: 1, switches: 140), "a.service"), (Self.process(11, cpu: 0.5, switches: 3), "b.service"),
             (Self.process(12, cpu: 0.25, switches: 10), "a.service")],
            busyTicks: 200, idleTicks: 200, watts: 10))
        #expect(sample.intervalSeconds == 2)
        #expect(sample.nodeCPUPercent == 50)
        #expect(sample.systemWatts == 10 && sample.activeWatts == 5 && sample.idleWatts == 5)
        let rows = Dictionary(uniqueKeysWithValues: sample.processes.map { ($0.pid ?? 0, $0) })
        #expect(rows[10]?.watts == 2.5 && rows[10]?.joules == 5)
        #expect(rows[11]?.watts == 1.25 && rows[11]?.joules == 2.5)
        #expect(rows[12]?.watts == 0.625 && rows[12]?.joules == 1.25)
        #expect(rows[10]?.cpuPercent == 50 && rows[11]?.cpuPercent == 25 && rows[12]?.cpuPercent == 12.5)
        // Switches that dropped (a thread exited) count as none, not as a wrap.
        #expect(rows[10]?.wakeupsPerSecond == 20 && rows[11]?.wakeupsPerSecond == 0 && rows[12]?.wakeupsPerSecond == 5)
        #expect(rows[10]?.energyImpact == 50 + 0.02 * 20)
        // Busy time no process accounts for (0.25 s of 2 s) stays unattributed.
        #expect(sample.unattributedWatts == 0.625)
        let total = sample.processes.compactMap(\.watts).reduce(0, +) + (sample.unattributedWatts ?? 0) + (sample.idleWatts ?? 0)
        #expect(abs(total - 10) < 1e-9)
        #expect(sample.unitJoules == ["a.service": 6.25, "b.service": 2.5])

        // p10 exits; nothing measures the host any more: power unknown, energy so far kept.
        let later = accounting.record(Self.reading(
            at: 3, [(Self.process(11, cpu: 0.5, switches: 3), "b.service"), (Self.process(12, cpu: 0.35, switches: 12), "a.service")],
            busyTicks: 300, idleTicks: 300, source: Self.model, watts: nil))
        #expect(later.systemWatts == nil && later.activeWatts == nil && later.idleWatts == nil)
        #expect(later.processes.allSatisfy { $0.watts == nil })
        #expect(later.processes.map(\.joules) == [2.5, 1.25])
        #expect(abs(try #require(later.processes.last?.cpuPercent) - 10) < 1e-9)
        #expect(later.processes.last?.energyImpact.map { abs($0 - (10 + 0.02 * 2)) < 1e-9 } == true)
        let units = Dictionary(uniqueKeysWithValues: later.units.map { ($0.unit ?? "", $0) })
        #expect(units["a.service"]?.joules == 6.25)  // the exited p10's share stays in its unit
        #expect(units["a.service"]?.processCount == 1 && units["a.service"]?.pid == nil)
        #expect(units["b.service"]?.joules == 2.5)
    }

    @Test func aModelSourceGivesScoresAndNeverZeroWatts() {
        var accounting = ProcessEnergyAccounting(ticksPerSecond: 100)
        _ = accounting.record(Self.reading(at: 0, [(Self.process(1, cpu: 0, switches: 0), "x.service")], busyTicks: 0, idleTicks: 0, source: Self.model, watts: nil))
        let sample = accounting.record(Self.reading(
            at: 1, [(Self.process(1, cpu: 0.1, switches: 500), "x.service")], busyTicks: 10, idleTicks: 90, source: Self.model, watts: nil))
        let row = sample.processes[0]
        #expect(row.watts == nil && row.joules == nil)
        #expect(row.wakeupsPerSecond == 500)
        #expect(row.energyImpact.map { abs($0 - 20) < 1e-9 } == true)  // 10 % + 0.02 × 500
        #expect(sample.unitJoules.isEmpty)
        let json = sample.json(order: .energy, byUnit: false)
        #expect(json["source"] == .string("model") && json["systemW"] == .null)
        guard case .array(let processes) = json["processes"], case .object(let object) = processes.first else {
            Issue.record("no processes in \(json)")
            return
        }
        #expect(object.entries.map(\.0) == ["pid", "name", "unit", "cpuPercent", "wakeupsPerS", "powerW", "energyJ", "energyImpact"])
        #expect(object["powerW"] == .null && object["energyJ"] == .null && object["energyImpact"] == .double(20))
    }

    @Test func aStaticNodeCounterLeavesPowerUnknown() {
        // No tick elapsed in /proc/stat (a fixture nobody touched): no busy share to split by.
        var accounting = ProcessEnergyAccounting(ticksPerSecond: 100)
        _ = accounting.record(Self.reading(at: 0, [(Self.process(1, cpu: 0, switches: 0), "x.service")], busyTicks: 5, idleTicks: 5, watts: nil))
        let sample = accounting.record(Self.reading(at: 1, [(Self.process(1, cpu: 0.5, switches: 0), "x.service")], busyTicks: 5, idleTicks: 5, watts: 7))
        #expect(sample.systemWatts == 7)
        #expect(sample.activeWatts == nil && sample.nodeCPUPercent == nil)
        #expect(sample.processes[0].watts == nil && sample.processes[0].joules == nil)
    }

    @Test func sortingPutsTheLargestFirstAndUnknownLast() {
        let rows = [
            ProcessEnergy(pid: 1, name: "a", unit: nil, cpuPercent: 5, wakeupsPerSecond: nil, watts: 0.5, joules: 1, energyImpact: nil),
            ProcessEnergy(pid: 2, name: "b", unit: nil, cpuPercent: 50, wakeupsPerSecond: 3, watts: 2, joules: 1, energyImpact: 50.06),
            ProcessEnergy(pid: 3, name: "c", unit: nil, cpuPercent: 1, wakeupsPerSecond: 900, watts: nil, joules: nil, energyImpact: 19),
        ]
        #expect(ProcessEnergy.sorted(rows, by: .energy).map(\.pid) == [2, 1, 3])
        #expect(ProcessEnergy.sorted(rows, by: .cpu).map(\.pid) == [2, 1, 3])
        #expect(ProcessEnergy.sorted(rows, by: .wakeups).map(\.pid) == [3, 2, 1])
    }

    @Test func keplerSplitFollowsTheBusyShare() throws {
        let split = try #require(EnergyAttribution.split(hostJoules: 12, busyTicks: 30, totalTicks: 120))
        #expect(split.active == 3 && split.idle == 9)
        #expect(EnergyAttribution.split(hostJoules: nil, busyTicks: 1, totalTicks: 2) == nil)
        #expect(EnergyAttribution.split(hostJoules: 5, busyTicks: 0, totalTicks: 0) == nil)
        #expect(EnergyAttribution.split(hostJoules: .nan, busyTicks: 1, totalTicks: 2) == nil)
        // A busy count beyond the total (counters read apart) never makes idle negative.
        #expect(EnergyAttribution.split(hostJoules: 4, busyTicks: 9, totalTicks: 8).map { $0.idle } == 0)
    }
}
