@testable import JouleHardware
import JouleTesting
import Foundation
import Testing

@Suite struct ProcessSamplerTests {
    @Test func keepsDescriptorsOpenAndSeesUpdates() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "a", utime: 1)
        try tree.addProcess(pid: 11, comm: "b", utime: 2)
        let sampler = ProcessSampler(root: tree.path, ticksPerSecond: 100)
        var samples = try sampler.sample()
        #expect(Set(samples.map(\.pid)) == [10, 11])
        #expect(sampler.openDescriptorCount == 2)
        try tree.update(pid: 10, comm: "a", utime: 40, stime: 2)
        samples = try sampler.sample()
        #expect(samples.first { $0.pid == 10 }?.cpuNanoseconds == 420_000_000)
        #expect(sampler.openDescriptorCount == 2)
    }

    @Test func vanishedProcessesAreSkippedAndTheirDescriptorsClosed() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "a")
        try tree.addProcess(pid: 11, comm: "b")
        let sampler = ProcessSampler(root: tree.path)
        _ = try sampler.sample()
        try tree.remove(pid: 11)
        let samples = try sampler.sample()
        #expect(samples.map(\.pid) == [10])
        #expect(sampler.openDescriptorCount == 1)
    }

    @Test func pidReuseShowsAsANewIdentity() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "old", utime: 500, startTime: 100)
        let sampler = ProcessSampler(root: tree.path)
        let first = try sampler.sample()
        try tree.update(pid: 10, comm: "new", utime: 3, startTime: 9000)
        let second = try sampler.sample()
        #expect(first.first?.identity == ProcessIdentity(pid: 10, startTimeTicks: 100))
        #expect(second.first?.identity == ProcessIdentity(pid: 10, startTimeTicks: 9000))
    }

    @Test func undecodableStatIsSkippedAndCounted() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "a")
        try tree.write("proc/12/stat", "12 (broken) R 1 2\n")
        let sampler = ProcessSampler(root: tree.path)
        let samples = try sampler.sample()
        #expect(samples.map(\.pid) == [10])
        #expect(sampler.lastUndecodableCount == 1)
    }

    @Test func selectedPIDsOnly() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "a")
        try tree.addProcess(pid: 11, comm: "b")
        let sampler = ProcessSampler(root: tree.path)
        #expect(try sampler.sample(only: [11]).map(\.pid) == [11])
        #expect(sampler.openDescriptorCount == 1)
    }

    @Test func descriptorCapFallsBackToOpenReadClose() throws {
        let tree = try ProcTree()
        for pid: Int32 in 20..<30 { try tree.addProcess(pid: pid, comm: "p\(pid)") }
        let sampler = ProcessSampler(root: tree.path, maxOpenDescriptors: 3)
        #expect(try sampler.sample().count == 10)
        #expect(sampler.openDescriptorCount == 3)
        #expect(try sampler.sample().count == 10)
    }

    @Test func missingProcIsAnErrorNamingIt() throws {
        let sampler = ProcessSampler(root: "/nonexistent-joule-root")
        #expect(throws: HardwareError.self) { try sampler.sample() }
    }

    @Test func singleThreadedProcessesAdvanceWithSchedstatAnchoredOnStat() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "solo", utime: 100)  // 1 s; task/ has one thread
        try tree.write("proc/10/schedstat", "7000000000 0 5\n")  // run time since start: 7 s
        let sampler = ProcessSampler(root: tree.path, ticksPerSecond: 100)
        #expect(try sampler.sample().first?.cpuNanoseconds == 1_000_000_000)
        #expect(sampler.openDescriptorCount == 3)  // stat, schedstat, task/
        // Only schedstat moves: 0.25 s more on top of the stat anchor, at ns resolution.
        try tree.write("proc/10/schedstat", "7250000001 0 6\n")
        #expect(try sampler.sample().first?.cpuNanoseconds == 1_250_000_001)
        // A second thread appears (task/ link count 4): stat is read again, and its tick-
        // truncated value never moves the series backwards.
        try tree.write("proc/10/task/11/stat", ProcTree.statLine(pid: 11, comm: "solo"))
        try tree.write("proc/10/stat", ProcTree.statLine(pid: 10, comm: "solo", utime: 124, threads: 2))
        #expect(try sampler.sample().first?.cpuNanoseconds == 1_250_000_001)
        try tree.write("proc/10/stat", ProcTree.statLine(pid: 10, comm: "solo", utime: 300, threads: 2))
        let sample = try #require(try sampler.sample().first)
        #expect(sample.cpuNanoseconds == 3_000_000_000)
        #expect(sample.threadCount == 2)
    }

    @Test func schedstatPathAgreesWithStatOnALiveBusyProcess() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "while :; do :; done"]
        try child.run()
        defer { kill(child.processIdentifier, SIGKILL) }  // Foundation reaps it
        let pid = child.processIdentifier
        let sampler = ProcessSampler()
        var values: [UInt64] = []
        for _ in 0..<10 {
            values.append(try #require(try sampler.sample(only: [pid]).first?.cpuNanoseconds))
            try await Task.sleep(for: .milliseconds(30))
        }
        #expect(sampler.openDescriptorCount == 3)
        #expect(values == values.sorted())
        #expect(values.last ?? 0 > values.first ?? 0)
        // The schedstat-advanced value stays within a few ticks of a fresh stat read.
        let stat = try #require(try ProcFS().stat(pid))
        let latest = try #require(try sampler.sample(only: [pid]).first?.cpuNanoseconds)
        let statNanoseconds = stat.cpuTicks * UInt64(1_000_000_000 / CurrentProcess.clockTicksPerSecond)
        #expect(abs(Double(latest) - Double(statNanoseconds)) < 0.2e9)
    }

    @Test func samplesTheLiveMachineIncludingItself() throws {
        let sampler = ProcessSampler()
        let samples = try sampler.sample()
        let me = try #require(samples.first { $0.pid == CurrentProcess.pid })
        #expect(me.state == .running || me.state == .sleeping)
        #expect(samples.count > 1)
    }

    @Test func voluntarySwitchesOfASingleThreadedProcessComeThroughAKeptDescriptor() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 10, comm: "solo", utime: 100, voluntarySwitches: 40)
        try tree.write("proc/10/schedstat", "1000000000 0 5\n")
        let sampler = ProcessSampler(root: tree.path, ticksPerSecond: 100)
        #expect(try sampler.sample().first?.voluntarySwitches == nil)  // not asked for
        #expect(sampler.openDescriptorCount == 3)
        #expect(try sampler.sample(voluntarySwitches: true).first?.voluntarySwitches == 40)
        #expect(sampler.openDescriptorCount == 4)  // stat, schedstat, task/, status
        // Run time unchanged: it never ran, so it cannot have switched; status is not read.
        try tree.write("proc/10/status", ProcTree.statusText(pid: 10, comm: "solo", voluntarySwitches: 45))
        #expect(try sampler.sample(voluntarySwitches: true).first?.voluntarySwitches == 40)
        try tree.write("proc/10/schedstat", "1000500000 0 9\n")
        #expect(try sampler.sample(voluntarySwitches: true).first?.voluntarySwitches == 45)
    }

    @Test func voluntarySwitchesOfAMultiThreadedProcessAreSummedOverItsThreads() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 20, comm: "pool", utime: 10, voluntarySwitches: 7)
        try tree.write("proc/20/stat", ProcTree.statLine(pid: 20, comm: "pool", utime: 10, threads: 2))
        try tree.write("proc/20/task/21/stat", ProcTree.statLine(pid: 21, comm: "worker"))
        try tree.write("proc/20/task/21/status", ProcTree.statusText(pid: 21, comm: "worker", voluntarySwitches: 1000))
        let sampler = ProcessSampler(root: tree.path, ticksPerSecond: 100)
        #expect(try sampler.sample(voluntarySwitches: true).first?.voluntarySwitches == 1007)
        // A thread that exits takes its count along: the sum drops.
        try tree.write("proc/20/stat", ProcTree.statLine(pid: 20, comm: "pool", utime: 10, threads: 1))
        try FileManager.default.removeItem(atPath: tree.path + "/proc/20/task/21")
        #expect(try sampler.sample(voluntarySwitches: true).first?.voluntarySwitches == 7)
    }

    @Test func aStatusWithoutTheSwitchLineIsUnknownNotZero() throws {
        let tree = try ProcTree()
        try tree.addProcess(pid: 30, comm: "old")
        let sampler = ProcessSampler(root: tree.path)
        let sample = try #require(try sampler.sample(voluntarySwitches: true).first)
        #expect(sample.voluntarySwitches == nil)
    }

    @Test func statusDecoderReadsOnlyTheVoluntaryLine() {
        func decode(_ text: String) -> UInt64? {
            Array(text.utf8).withUnsafeBytes { ProcessStatus.voluntarySwitches(in: $0) }
        }
        #expect(decode("Name:\ta\nnonvoluntary_ctxt_switches:\t9\nvoluntary_ctxt_switches:\t12\n") == 12)
        #expect(decode("Name:\ta\nvoluntary_ctxt_switches:\t3") == 3)
        #expect(decode("Name:\ta\nnonvoluntary_ctxt_switches:\t9\n") == nil)
        #expect(decode("Name:\ta\nvoluntary_ctxt_switches:\t-4\n") == nil)
        #expect(decode("Name:\ta\nvoluntary_ctxt_switches:\t99999999999999999999999\n") == nil)
        #expect(decode("") == nil)
    }

    @Test func liveSwitchesOfThisProcessAreReadAndNeverTooFew() throws {
        // At least what the leader alone had switched just before, as the kernel prints it.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        let leader = try #require(UInt64(line.split(separator: "\t").last ?? ""))
        let sampler = ProcessSampler()
        let me = try #require(try sampler.sample(only: [CurrentProcess.pid], voluntarySwitches: true).first)
        #expect(try #require(me.voluntarySwitches) >= leader)
    }
}
