@testable import JouleHardware
import JouleTesting
import Testing

@Suite struct ProcessStatTests {
    // A real line from this kernel: `cat /proc/self/stat`.
    let catLine = "7799 (cat) R 7795 7795 4554 0 -1 4194304 100 0 0 0 3 2 0 0 20 0 1 0 59631 3133440 412 18446744073709551615 94584547627008 94584547646889 140725228097856 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94584547662896 94584547664512 94584623599616 140725228104400 140725228104420 140725228104420 140725228105707 0\n"

    @Test func decodesTheFieldsCPUAccountingNeeds() throws {
        let stat = try ProcessStat.parse(Array(catLine.utf8))
        #expect(stat.pid == 7799)
        #expect(stat.comm == "cat")
        #expect(stat.state == .running)
        #expect(stat.ppid == 7795)
        #expect(stat.flags == 4_194_304)
        #expect(stat.utimeTicks == 3)
        #expect(stat.stimeTicks == 2)
        #expect(stat.cpuTicks == 5)
        #expect(stat.threadCount == 1)
        #expect(stat.startTimeTicks == 59631)
        #expect(stat.identity == ProcessIdentity(pid: 7799, startTimeTicks: 59631))
        #expect(!stat.isKernelThread)
    }

    @Test func commandNameMayHoldSpacesAndParentheses() throws {
        let line = ProcTree.statLine(pid: 42, comm: "a) R 1 (b", state: "T", utime: 7, startTime: 99)
        let stat = try ProcessStat.parse(Array(line.utf8))
        #expect(stat.comm == "a) R 1 (b")
        #expect(stat.state == .stopped)
        #expect(stat.state.isStopped)
        #expect(stat.utimeTicks == 7)
        #expect(stat.startTimeTicks == 99)
    }

    @Test func kernelThreadFlagIsRecognised() throws {
        let line = ProcTree.statLine(pid: 17, comm: "kworker/0:1-events", state: "I", ppid: 2, flags: 0x0420_8060)
        let stat = try ProcessStat.parse(Array(line.utf8))
        #expect(stat.isKernelThread)
        #expect(stat.state == .idle)
        #expect(stat.state.name == "idle")
    }

    @Test func badInputGivesTypedErrorsNeverATrap() {
        #expect(throws: ProcessStatParseError.empty) { try ProcessStat.parse([]) }
        #expect(throws: ProcessStatParseError.missingCommand) { try ProcessStat.parse(Array("12 cat R 1".utf8)) }
        #expect(throws: ProcessStatParseError.badPID) { try ProcessStat.parse(Array("x1 (cat) R 1".utf8)) }
        #expect(throws: ProcessStatParseError.badPID) { try ProcessStat.parse(Array("99999999999 (cat) R 1".utf8)) }
        #expect(throws: ProcessStatParseError.truncated(field: 5)) { try ProcessStat.parse(Array("12 (cat) R 1".utf8)) }
        // A truncated capture: the line stops after utime.
        let truncated = String(catLine.prefix(60))
        #expect(throws: ProcessStatParseError.self) { try ProcessStat.parse(Array(truncated.utf8)) }
        let overflow = catLine.replacingOccurrences(of: " 59631 ", with: " 99999999999999999999999 ")
        #expect(throws: ProcessStatParseError.badNumber(field: 22)) { try ProcessStat.parse(Array(overflow.utf8)) }
        let negative = catLine.replacingOccurrences(of: " 3 2 ", with: " -3 2 ")
        #expect(throws: ProcessStatParseError.badNumber(field: 14)) { try ProcessStat.parse(Array(negative.utf8)) }
        #expect(throws: ProcessStatParseError.badNumber(field: 3)) {
            try ProcessStat.parse(Array("12 (cat) RS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20".utf8))
        }
    }

    @Test func cpuTicksSaturateInsteadOfOverflowing() throws {
        let line = ProcTree.statLine(pid: 5, comm: "x", utime: UInt64.max, stime: 10)
        #expect(try ProcessStat.parse(Array(line.utf8)).cpuTicks == UInt64.max)
    }

    @Test func statusGivesTheOwner() {
        let status = ProcessStatus.parse("Name:\tbash\nUid:\t1000\t1001\t1002\t1003\nGid:\t0\t0\t0\t0\n")
        #expect(status == ProcessStatus(realUID: 1000, effectiveUID: 1001, savedUID: 1002))
        #expect(ProcessStatus.parse("Name:\tbash\n") == nil)
        #expect(ProcessStatus.parse("Uid:\tx\t1\t2\t3\n") == nil)
    }

    @Test func smallDecoders() {
        #expect(ProcFS.parseCommandLine(Array("sh\0-c\0while :; do :; done\0".utf8)) == ["sh", "-c", "while :; do :; done"])
        #expect(ProcFS.parseCommandLine([]) == [])
        #expect(ProcFS.parseCgroup("12:cpu:/a\n0::/user.slice/app.scope\n") == "/user.slice/app.scope")
        #expect(ProcFS.parseCgroup("4:memory:/x\n") == nil)
        #expect(ProcFS.parseKernelStack("[<0>] do_nanosleep+0x6e/0x160\n[<0>] hrtimer_nanosleep+0x9a/0x140\n")
            == ["do_nanosleep+0x6e/0x160", "hrtimer_nanosleep+0x9a/0x140"])
    }
}
