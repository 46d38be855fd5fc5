import Foundation
@testable import JouleWire
@testable import JouleHardware
@testable import JouleEnergy
import JouleTesting
import Testing

/// `joule status` without its 0.2 s sleep: usage since the runtime directory's memo when it is
/// 0.1–60 s old, else a 20 ms sample fine enough to show, else null; the memo always updated.
@Suite struct CPUUsageProbeTests {
    /// /proc/stat with `busy` user ticks and `idle` idle ticks over 2 cores.
    static func stat(busy: UInt64, idle: UInt64) -> String {
        "cpu  \(busy) 0 0 \(idle) 0 0 0 0 0 0\ncpu0 \(busy) 0 0 \(idle) 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n"
    }

    /// A proc tree, a memo beside it, a clock the test sets, and a pause that advances /proc/stat
    /// by `onPause` and records how long it was asked to wait.
    final class Rig: Sendable {
        let tree: ProcTree
        let memo: CPUStatMemo
        let clock = Locked<UInt64>(100_000_000_000)
        let pauses = Locked<[Duration]>([])
        let onPause: Locked<(busy: UInt64, idle: UInt64)?> = Locked(nil)

        init(busy: UInt64, idle: UInt64, ticksPerSecond: Int = 1000) throws {
            self.ticksPerSecond = ticksPerSecond
            tree = try ProcTree()
            memo = CPUStatMemo(path: tree.path + "/cpu-stat")
            try tree.write("proc/stat", CPUUsageProbeTests.stat(busy: busy, idle: idle))
        }

        var probe: CPUUsageProbe {
            CPUUsageProbe(
                memo: memo, now: { [self] in clock.withLock { $0 } },
                pause: { [self] span in
                    pauses.withLock { $0.append(span) }
                    clock.withLock { $0 += UInt64(span.components.attoseconds / 1_000_000_000) }
                    if let next = onPause.withLock({ $0 }) {
                        try? tree.write("proc/stat", CPUUsageProbeTests.stat(busy: next.busy, idle: next.idle))
                    }
                }, ticksPerSecond: ticksPerSecond)
        }

        /// USER_HZ as the probe sees it: 1000 lets 20 ms on these 2 cores count 40 ticks.
        let ticksPerSecond: Int


        func measure() -> Double? { probe.measure(CPUStatReader(root: tree.path)).usagePercent }
        func advance(seconds: Double) { clock.withLock { $0 += UInt64(seconds * 1e9) } }
    }

    @Test func aFreshMemoGivesUsageSinceItWithoutAPause() throws {
        let rig = try Rig(busy: 100, idle: 900)
        try rig.memo.save(.init(times: CPUTimes(user: 40, nice: 0, system: 0, idle: 760), monotonicNanoseconds: 95_000_000_000))
        // 5 s later: 60 busy of 200 ticks.
        #expect(rig.measure() == 30)
        #expect(rig.pauses.withLock { $0 }.isEmpty)
        #expect(rig.memo.load() == .init(times: CPUTimes(user: 100, nice: 0, system: 0, idle: 900), monotonicNanoseconds: 100_000_000_000))
    }

    @Test func withoutAMemoTwentyMillisecondsFineEnoughAreUsed() throws {
        let rig = try Rig(busy: 100, idle: 900)
        rig.onPause.withLock { $0 = (busy: 106, idle: 910) }
        #expect(rig.measure() == 37.5)  // 6 of 16 ticks
        #expect(rig.pauses.withLock { $0 } == [.milliseconds(20)])
        // The memo holds the second sample, at its own time.
        #expect(rig.memo.load() == .init(times: CPUTimes(user: 106, nice: 0, system: 0, idle: 910), monotonicNanoseconds: 100_020_000_000))
        // The next status a second later needs no pause.
        try rig.tree.write("proc/stat", Self.stat(busy: 156, idle: 1060))
        rig.advance(seconds: 1)
        #expect(rig.measure() == 25)
        #expect(rig.pauses.withLock { $0 }.count == 1)
    }

    @Test func tooFewTicksInTheShortSampleIsNullNotACoarseFigure() throws {
        let rig = try Rig(busy: 100, idle: 900)
        rig.onPause.withLock { $0 = (busy: 102, idle: 902) }  // 4 ticks: 2 cores, 20 ms
        #expect(rig.measure() == nil)
        #expect(rig.memo.load()?.times.user == 102, "still remembered for the next status")
    }

    @Test(arguments: [0.05, 61.0, -1.0])
    func aMemoTooYoungTooOldOrFromTheFutureIsNotUsed(age: Double) throws {
        let rig = try Rig(busy: 100, idle: 900)
        let now = rig.clock.withLock { $0 }
        let stamp = age >= 0 ? now - UInt64(age * 1e9) : now + 1_000_000_000
        try rig.memo.save(.init(times: CPUTimes(user: 0, nice: 0, system: 0, idle: 0), monotonicNanoseconds: stamp))
        rig.onPause.withLock { $0 = (busy: 110, idle: 910) }
        #expect(rig.measure() == 50)
        #expect(rig.pauses.withLock { $0 }.count == 1)
    }

    @Test func aMemoWithTooFewTicksFallsBackToTheShortSample() throws {
        let rig = try Rig(busy: 100, idle: 900)
        try rig.memo.save(.init(times: CPUTimes(user: 99, nice: 0, system: 0, idle: 899), monotonicNanoseconds: 99_800_000_000))
        rig.onPause.withLock { $0 = (busy: 110, idle: 910) }
        #expect(rig.measure() == 50)
    }

    @Test func aProcStatThatNeverMovesIsNullWithoutAPause() throws {
        // A fixture's /proc/stat read through the live path: the first status finds no memo
        // and its short sample counts not one tick; no later one sleeps for it, a second later
        // or straight after.
        let rig = try Rig(busy: 100, idle: 900)
        #expect(rig.measure() == nil)
        #expect(rig.pauses.withLock { $0 }.count == 1)
        #expect(rig.memo.load()?.isStill == true)
        rig.advance(seconds: 1)
        #expect(rig.measure() == nil)
        rig.advance(seconds: 0.01)
        #expect(rig.measure() == nil)
        #expect(rig.pauses.withLock { $0 }.count == 1, "no sleep for a figure that cannot come")
        // A kernel that moves again is measured again.
        try rig.tree.write("proc/stat", Self.stat(busy: 150, idle: 1050))
        rig.advance(seconds: 1)
        #expect(rig.measure() == 25)
        #expect(rig.memo.load()?.isStill == false)
    }

    @Test func aStillMemoFoundUnmovedOverASecondIsStillWithoutASample() throws {
        let rig = try Rig(busy: 100, idle: 900)
        try rig.memo.save(.init(times: CPUTimes(user: 100, nice: 0, system: 0, idle: 900), monotonicNanoseconds: 99_000_000_000))
        #expect(rig.measure() == nil)
        #expect(rig.pauses.withLock { $0 }.isEmpty)
        #expect(rig.memo.load()?.isStill == true)
    }

    @Test func aYoungMemoThatIsNotStillStillGetsTheShortSample() throws {
        // A live kernel asked twice within 0.1 s: the same ticks are no proof of a fixture.
        let rig = try Rig(busy: 100, idle: 900)
        try rig.memo.save(.init(times: CPUTimes(user: 100, nice: 0, system: 0, idle: 900), monotonicNanoseconds: 99_990_000_000))
        rig.onPause.withLock { $0 = (busy: 110, idle: 910) }
        #expect(rig.measure() == 50)
        #expect(rig.pauses.withLock { $0 }.count == 1)
    }

    @Test(arguments: ["", "joule-cpu-stat 2\n1 2 3\n", "joule-cpu-stat 1\n1 2 3 4 5 6 7 8 9\n",
        "joule-cpu-stat 2\n1 2 3 4 5 6 7 8 9 2\n", "\u{0}\u{ff}garbage"])
    func aDamagedMemoIsNoMemoAndIsReplaced(text: String) throws {
        let rig = try Rig(busy: 100, idle: 900)
        try rig.tree.write("cpu-stat", text)
        rig.onPause.withLock { $0 = (busy: 110, idle: 910) }
        #expect(rig.measure() == 50)
        #expect(rig.memo.load() != nil)
    }

    @Test func withoutAMemoDirectoryStatusStillMeasures() throws {
        let rig = try Rig(busy: 100, idle: 900)
        rig.onPause.withLock { $0 = (busy: 110, idle: 910) }
        let probe = CPUUsageProbe(
            memo: CPUStatMemo(path: rig.tree.path + "/missing/cpu-stat"), now: { 1 },
            pause: { _ in try? rig.tree.write("proc/stat", Self.stat(busy: 110, idle: 910)) }, ticksPerSecond: 1000)
        #expect(probe.measure(CPUStatReader(root: rig.tree.path)).usagePercent == 50)
    }

    /// At USER_HZ 100, 20 ms on 2 cores is 4 ticks: never the 10 a figure needs, so status
    /// does not sleep for a certain null, and still leaves its sample for the next one.
    @Test func whereTheShortSampleCannotCountEnoughItIsNotTaken() throws {
        let rig = try Rig(busy: 100, idle: 900, ticksPerSecond: 100)
        rig.onPause.withLock { $0 = (busy: 104, idle: 904) }
        #expect(rig.measure() == nil)
        #expect(rig.pauses.withLock { $0 }.isEmpty)
        #expect(rig.memo.load()?.times == CPUTimes(user: 100, nice: 0, system: 0, idle: 900))
        rig.advance(seconds: 1)
        try rig.tree.write("proc/stat", Self.stat(busy: 150, idle: 1050))
        #expect(rig.measure() == 25)  // 50 busy of 200 ticks since the memo
        #expect(rig.pauses.withLock { $0 }.isEmpty)
    }

    @Test func aFixtureIsReadTwiceWithoutPauseOrMemo() throws {
        let rig = try Rig(busy: 100, idle: 900)
        let result = CPUUsageProbe.unpaused.measure(CPUStatReader(root: rig.tree.path))
        #expect(result.stat?.cores == 2)
        #expect(result.usagePercent == nil, "a static tree has no elapsed ticks")
        #expect(rig.memo.load() == nil)
    }

    @Test func anUnreadableProcStatIsNullEverything() throws {
        let probe = CPUUsageProbe(memo: nil, now: { 1 }, pause: { _ in })
        let result = probe.measure(CPUStatReader(root: "/nonexistent-joule-root"))
        #expect(result.stat == nil && result.usagePercent == nil)
    }

    @Test func theMemoRoundTrips() {
        let entry = CPUStatMemo.Entry(
            times: CPUTimes(user: 1, nice: 2, system: 3, idle: 4, iowait: 5, irq: 6, softirq: 7, steal: 8),
            monotonicNanoseconds: 123_456_789)
        #expect(CPUStatMemo.decode(Array(CPUStatMemo.encode(entry).utf8)) == entry)
        var still = entry
        still.isStill = true
        #expect(CPUStatMemo.decode(Array(CPUStatMemo.encode(still).utf8)) == still)
    }
}
