#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Samples the CPU counters of every process (or a chosen few) cheaply, sample after sample.
///
/// Each /proc/PID/stat stays open between samples and is re-read with one pread(2): no
/// path lookup, no open/close per process per sample. A descriptor for /proc/PID/stat keeps
/// naming the process it was opened for; once that process is reaped the pread fails (ESRCH)
/// or reads nothing, and the sampler reopens by path, which then finds the PID's new owner,
/// if any, under a new identity (pid, starttime). Processes that vanish are skipped, never
/// reported as errors. Not Sendable: it owns descriptors and a buffer, and lives inside one
/// actor or task.
public final class ProcessSampler {
    public let procfs: ProcFS
    /// Clock ticks per second, for converting tick counts to seconds.
    public let ticksPerSecond: Int

    private struct Entry {
        var fd: Int32
        var generation: UInt64
    }

    private var entries: [Int32: Entry] = [:]
    private var generation: UInt64 = 0
    private let buffer: UnsafeMutableRawBufferPointer
    private let maxOpenDescriptors: Int

    /// Processes skipped in the last sample because their stat line could not be decoded.
    public private(set) var lastUndecodableCount = 0

    /// - Parameter maxOpenDescriptors: how many stat files to keep open; beyond it, processes
    ///   are read with open/pread/close. Defaults to half the soft RLIMIT_NOFILE.
    public init(root: String = "/", ticksPerSecond: Int = Syscalls.clockTicksPerSecond(), maxOpenDescriptors: Int? = nil) {
        procfs = ProcFS(root: root)
        self.ticksPerSecond = ticksPerSecond
        self.maxOpenDescriptors = maxOpenDescriptors ?? max(16, (Syscalls.openFileLimit() ?? 2048) / 2)
        // A stat line is at most ~700 bytes (52 numeric fields and a 64-byte name).
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    }

    deinit {
        for entry in entries.values { Syscalls.close(entry.fd) }
        buffer.deallocate()
    }

    /// Descriptors currently held open.
    public var openDescriptorCount: Int { entries.count }

    /// Samples every process listed in /proc, or only `pids` when given. Throws only when
    /// /proc itself cannot be listed.
    public func sample(only pids: Set<Int32>? = nil) throws(HardwareError) -> [ProcessCPUSample] {
        let listed = try Syscalls.listNumericEntries(procfs.procPath)
        generation &+= 1
        lastUndecodableCount = 0
        var result: [ProcessCPUSample] = []
        result.reserveCapacity(pids?.count ?? listed.count)
        for pid in listed {
            if let pids, !pids.contains(pid) { continue }
            if let sample = read(pid) { result.append(sample) }
        }
        // Close descriptors of processes no longer listed (or no longer asked for).
        if entries.count > result.count {
            let current = generation
            for (pid, entry) in entries where entry.generation != current {
                Syscalls.close(entry.fd)
                entries[pid] = nil
            }
        }
        return result
    }

    private func read(_ pid: Int32) -> ProcessCPUSample? {
        if let entry = entries[pid] {
            if let sample = preadSample(entry.fd, pid: pid) {
                entries[pid]?.generation = generation
                return sample
            }
            // The process this descriptor named is gone; the PID may have a new owner.
            Syscalls.close(entry.fd)
            entries[pid] = nil
        }
        let path = "\(procfs.procPath)/\(pid)/stat"
        guard let fd = try? Syscalls.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        guard let sample = preadSample(fd, pid: pid) else {
            Syscalls.close(fd)
            return nil
        }
        if entries.count < maxOpenDescriptors {
            entries[pid] = Entry(fd: fd, generation: generation)
        } else {
            Syscalls.close(fd)
        }
        return sample
    }

    /// One pread and an allocation-free decode; nil when the process is gone or undecodable.
    private func preadSample(_ fd: Int32, pid: Int32) -> ProcessCPUSample? {
        let n: Int
        do {
            n = try Syscalls.pread(fd, into: buffer, at: 0, path: "/proc/PID/stat")
        } catch {
            return nil
        }
        guard n > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<n])
        guard let fields = try? ProcessStatFields.scan(bytes), fields.pid == pid else {
            lastUndecodableCount += 1
            return nil
        }
        return ProcessCPUSample(
            pid: fields.pid, startTimeTicks: fields.startTimeTicks, utimeTicks: fields.utimeTicks,
            stimeTicks: fields.stimeTicks, state: fields.state, ppid: fields.ppid, flags: fields.flags,
            threadCount: fields.threadCount)
    }
}
