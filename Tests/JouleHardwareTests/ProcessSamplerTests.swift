import Foundation
import Testing
@testable import JouleHardware

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
        #expect(samples.first { $0.pid == 10 }?.cpuTicks == 42)
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

    @Test func samplesTheLiveMachineIncludingItself() throws {
        let sampler = ProcessSampler()
        let samples = try sampler.sample()
        let me = try #require(samples.first { $0.pid == Syscalls.processID() })
        #expect(me.state == .running || me.state == .sleeping)
        #expect(samples.count > 1)
    }
}
