import JouleEnergy
import Testing

@Suite struct EnergyAttributionTests {
    @Test func sharesFollowCPUTimeAndAddUpToTheHost() {
        let shares = EnergyAttribution.attribute(
            hostJoules: 20, interval: 2, nodeBusySeconds: 1.0,
            usages: [.init(pid: 1, cpuSeconds: 0.5), .init(pid: 2, cpuSeconds: 0.25), .init(pid: 3, cpuSeconds: 0)])
        #expect(shares.map(\.joules) == [10, 5, 0])
        #expect(shares.map(\.watts) == [5, 2.5, 0])
        // A quarter of the busy time went to nobody sampled: it stays unattributed.
        #expect(shares.compactMap(\.joules).reduce(0, +) == 15)
    }

    @Test func processesThatOutrunTheNodeCounterNeverGetMoreThanTheHostUsed() {
        let shares = EnergyAttribution.attribute(
            hostJoules: 10, interval: 1, nodeBusySeconds: 0.5,
            usages: [.init(pid: 1, cpuSeconds: 0.6), .init(pid: 2, cpuSeconds: 0.4)])
        #expect(shares.map(\.joules) == [6, 4])
    }

    @Test func nothingMeasuredIsNilNotZero() {
        let shares = EnergyAttribution.attribute(hostJoules: nil, interval: 1, nodeBusySeconds: 1, usages: [.init(pid: 7, cpuSeconds: 0.3)])
        #expect(shares == [.init(pid: 7, cpuSeconds: 0.3, joules: nil, watts: nil)])
        let garbage = EnergyAttribution.attribute(hostJoules: .nan, interval: 1, nodeBusySeconds: 1, usages: [.init(pid: 7, cpuSeconds: 0.3)])
        #expect(garbage.first?.joules == nil)
    }

    @Test func anIdleNodeAndAZeroIntervalGiveNoDivisionByZero() {
        let idle = EnergyAttribution.attribute(hostJoules: 3, interval: 1, nodeBusySeconds: 0, usages: [.init(pid: 1, cpuSeconds: 0)])
        #expect(idle.first?.joules == 0)
        let instant = EnergyAttribution.attribute(hostJoules: 3, interval: 0, nodeBusySeconds: 1, usages: [.init(pid: 1, cpuSeconds: 1)])
        #expect(instant.first?.joules == 3)
        #expect(instant.first?.watts == nil)
    }
}
