import Testing
@testable import JouleHardware

@Suite struct CPUStatTests {
    static let first = """
        cpu  100 0 50 800 50 0 0 0 20 0
        cpu0 50 0 25 400 25 0 0 0 10 0
        cpu1 50 0 25 400 25 0 0 0 10 0
        intr 12345 0 0
        ctxt 999
        """
    static let second = """
        cpu  200 0 100 850 50 0 0 0 40 0
        cpu0 150 0 50 400 25 0 0 0 30 0
        cpu1 50 0 75 450 25 0 0 0 10 0
        """

    @Test func coresAndUsage() throws {
        let a = try CPUStat.parse(Self.first)
        let b = try CPUStat.parse(Self.second)
        #expect(a.cores == 2)
        // busy 150→300, total 1000→1200: 150/200.
        #expect(b.usagePercent(since: a) == 75)
        let perCore = b.perCoreUsagePercent(since: a)
        #expect(perCore.map(\.index) == [0, 1])
        #expect(perCore.map(\.percent) == [100, 50])
        #expect(a.usagePercent(since: a) == nil)
    }

    @Test func guestIsNotCountedTwice() throws {
        let stat = try CPUStat.parse(Self.first)
        #expect(stat.all.total == 1000)
        #expect(stat.all.busy == 150)
    }

    @Test func countersGoingBackwardsAreNoProgress() {
        let before = CPUTimes(user: 100, nice: 0, system: 0, idle: 100, iowait: 50)
        let after = CPUTimes(user: 110, nice: 0, system: 0, idle: 130, iowait: 10)
        #expect(after.usagePercent(since: before) == nil)
    }

    @Test(arguments: ["", "intr 1 2 3", "cpu 1 2 x 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 3 4 5 6 7 8\ncpuX 1 2 3 4 5 6 7 8"])
    func malformedStatThrowsWithPath(text: String) {
        #expect(throws: HardwareError.self) { try CPUStat.parse(text, path: "/fixture/proc/stat") }
        do {
            _ = try CPUStat.parse(text, path: "/fixture/proc/stat")
        } catch {
            #expect(error.path == "/fixture/proc/stat")
            #expect(error.description.hasPrefix("parse /fixture/proc/stat: "))
        }
    }

    @Test func readerNamesMissingFile() {
        do {
            _ = try CPUStatReader(root: "/nonexistent-root").read()
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "open /nonexistent-root/proc/stat: No such file or directory (ENOENT)")
        }
    }

    @Test func readsLiveProc() throws {
        #expect(try CPUStatReader().read().cores >= 1)
    }
}

/// Found by `make fuzz` (cpustat): a /proc/stat with two cpu0 lines paired each against the
/// first one of the earlier sample, so the second got a usage computed from another line.
@Suite struct CPUStatDuplicateCoreTests {
    @Test func duplicateCoreLineIsAnError() {
        let text = """
            cpu  620625 1935 249165 0 3675 0 0 0
            cpu0 100000 320 41000 240 5113 0 611 0 0 0
            cpu2 10275 2400977 5113 0 611 0 0 0
            cpu0 322 41422 240145 1 2 3 4 5 9 10
            """
        #expect(throws: HardwareError.self) { try CPUStat.parse(text) }
    }
}
