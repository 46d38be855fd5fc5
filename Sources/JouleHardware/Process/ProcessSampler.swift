
/// Samples the CPU time of every process (or a chosen few) cheaply, sample after sample.
///
/// Descriptors stay open between samples and are re-read with pread(2): no path lookup and
/// no open/close per process per sample. /proc/PID/stat is costly for the kernel to format
/// (~3 µs here), so for a single-threaded process the sampler reads /proc/PID/schedstat
/// instead (~0.7 µs: the thread's run time in ns) and checks, with one fstat(2) of the open
/// /proc/PID/task directory (its link count is 2 + threads), that it is still alone. The
/// schedstat series is anchored on a stat read, so both sources give one monotonic
/// `cpuNanoseconds` per identity; a full stat read happens whenever a process has other
/// threads, and at least every `statRefreshSamples` samples. (schedstat is the leader
/// thread's: a process whose leader has exited is read through stat; should the leader exit
/// while schedstat is in use, the next refresh catches up on the missed time.)
///
/// A descriptor on /proc/PID/... keeps naming the process it was opened for; once that
/// process is reaped, reads fail (ESRCH) and the sampler reopens by path, finding the PID's
/// new owner, if any, under a new identity (pid, starttime). Vanished processes are skipped,
/// never errors. Not Sendable: it owns descriptors and a buffer, and lives inside one actor.
///
/// Asked for voluntary context switches (`joule top`'s wakeups), it also reads
/// `voluntary_ctxt_switches` from /proc/PID/status, which the kernel formats for one task only
/// and slowly (~15 µs). A single-threaded process keeps that descriptor open too and is not read
/// again while its schedstat run time stands still (no run, no switch); a multi-threaded one
/// sums /proc/PID/task/TID/status over its threads, opened per sample since threads come and go.
public final class ProcessSampler {
    public let procfs: ProcFS
    /// Clock ticks per second, the unit of /proc/PID/stat times.
    public let ticksPerSecond: Int
    /// Single-threaded processes get a full /proc/PID/stat read at least this often.
    public static let statRefreshSamples = 16

    private struct Entry {
        var statFD: Int32
        var schedFD: Int32 = -1
        var taskFD: Int32 = -1
        /// schedstat could not be opened (a fixture, an old kernel): stat only.
        var statOnly = false
        var generation: UInt64
        var last: ProcessCPUSample
        /// schedstat ns and cpuNanoseconds read together at the last stat read.
        var schedAnchor: UInt64 = 0
        var cpuAnchor: UInt64 = 0
        var anchored = false
        var samplesSinceStat = 0
        var statusFD: Int32 = -1
        /// The last voluntary switch count read, and the CPU time it was read at.
        var switches: UInt64?
        var switchesAtNanoseconds: UInt64 = 0
    }

    private var entries: [Int32: Entry] = [:]
    private var generation: UInt64 = 0
    private let buffer: UnsafeMutableRawBufferPointer
    private let maxOpenDescriptors: Int
    private let nanosecondsPerTick: UInt64
    private var openCount = 0

    /// Processes skipped in the last sample because their stat line could not be decoded.
    public private(set) var lastUndecodableCount = 0

    /// - Parameter maxOpenDescriptors: how many descriptors to keep open (up to three per
    ///   process); beyond it, processes are read with open/pread/close. Defaults to half the
    ///   soft RLIMIT_NOFILE.
    public init(root: String = "/", ticksPerSecond: Int = CurrentProcess.clockTicksPerSecond, maxOpenDescriptors: Int? = nil) {
        procfs = ProcFS(root: root)
        self.ticksPerSecond = max(1, ticksPerSecond)
        nanosecondsPerTick = 1_000_000_000 / UInt64(max(1, ticksPerSecond))
        self.maxOpenDescriptors = maxOpenDescriptors ?? max(16, (Syscalls.openFileLimit() ?? 2048) / 2)
        // A stat line is at most ~700 bytes (52 numeric fields and a 64-byte name).
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
    }

    deinit {
        for entry in entries.values { closeAll(entry) }
        buffer.deallocate()
    }

    /// Descriptors currently held open.
    public var openDescriptorCount: Int { openCount }

    /// Samples every process listed in /proc, or only `pids` when given; with
    /// `voluntarySwitches`, each sample carries its process's voluntary context switches too.
    /// Throws only when /proc itself cannot be listed.
    public func sample(only pids: Set<Int32>? = nil, voluntarySwitches: Bool = false) throws(HardwareError) -> [ProcessCPUSample] {
        let listed = try Syscalls.listNumericEntries(procfs.procPath)
        generation &+= 1
        lastUndecodableCount = 0
        var result: [ProcessCPUSample] = []
        result.reserveCapacity(pids?.count ?? listed.count)
        for pid in listed {
            if let pids, !pids.contains(pid) { continue }
            guard var sample = read(pid) else { continue }
            if voluntarySwitches { sample.voluntarySwitches = switches(pid, sample) }
            result.append(sample)
        }
        // Close descriptors of processes no longer listed (or no longer asked for).
        if entries.count > result.count {
            let current = generation
            for (pid, entry) in entries where entry.generation != current {
                closeAll(entry)
                entries[pid] = nil
            }
        }
        return result
    }

    private func closeAll(_ entry: Entry) {
        for fd in [entry.statFD, entry.schedFD, entry.taskFD, entry.statusFD] where fd >= 0 {
            Syscalls.close(fd)
            openCount -= 1
        }
    }

    private func read(_ pid: Int32) -> ProcessCPUSample? {
        if var entry = entries[pid] {
            if let sample = refresh(&entry, pid: pid) {
                entry.generation = generation
                entry.last = sample
                entries[pid] = entry
                return sample
            }
            // The process these descriptors named is gone; the PID may have a new owner.
            closeAll(entry)
            entries[pid] = nil
        }
        guard let fd = try? Syscalls.openForReading("\(procfs.procPath)/\(pid)/stat") else { return nil }
        guard let stat = readStat(fd, pid: pid) else {
            Syscalls.close(fd)
            return nil
        }
        let sample = makeSample(stat, cpu: nanoseconds(stat.cpuTicks))
        if openCount < maxOpenDescriptors {
            openCount += 1
            var entry = Entry(statFD: fd, generation: generation, last: sample)
            if stat.threadCount == 1 && stat.state != .zombie { anchor(&entry, pid: pid, cpu: sample.cpuNanoseconds) }
            entries[pid] = entry
        } else {
            Syscalls.close(fd)
        }
        return sample
    }

    /// The next sample of a known process: schedstat when it is alone and anchored, else
    /// stat. Nil when it has gone.
    private func refresh(_ entry: inout Entry, pid: Int32) -> ProcessCPUSample? {
        if entry.anchored, entry.samplesSinceStat < Self.statRefreshSamples,
           let links = Syscalls.linkCount(entry.taskFD)
        {
            if links == 3, let ns = readSchedstat(entry.schedFD) {
                entry.samplesSinceStat += 1
                var sample = entry.last
                let elapsed = ns >= entry.schedAnchor ? ns - entry.schedAnchor : 0
                sample.cpuNanoseconds = max(entry.last.cpuNanoseconds, entry.cpuAnchor &+ elapsed)
                return sample
            }
            if links < 3 { return nil }  // no threads left: the process has exited
        }
        guard let stat = readStat(entry.statFD, pid: pid) else { return nil }
        // A stat read has tick resolution: never let it move the series backwards.
        let cpu = max(entry.last.cpuNanoseconds, nanoseconds(stat.cpuTicks))
        let sample = makeSample(stat, cpu: cpu)
        entry.samplesSinceStat = 0
        entry.anchored = false
        if stat.threadCount == 1 && stat.state != .zombie { anchor(&entry, pid: pid, cpu: cpu) }
        return sample
    }

    /// Pairs the stat-based CPU time just read with schedstat's run time, opening the
    /// schedstat and task descriptors on first use.
    private func anchor(_ entry: inout Entry, pid: Int32, cpu: UInt64) {
        if entry.statOnly { return }
        if entry.schedFD < 0 || entry.taskFD < 0 {
            guard openCount + 2 <= maxOpenDescriptors,
                  let sched = try? Syscalls.openForReading("\(procfs.procPath)/\(pid)/schedstat")
            else {
                entry.statOnly = true
                return
            }
            guard let task = try? Syscalls.openDirectory("\(procfs.procPath)/\(pid)/task") else {
                Syscalls.close(sched)
                entry.statOnly = true
                return
            }
            entry.schedFD = sched
            entry.taskFD = task
            openCount += 2
        }
        guard let ns = readSchedstat(entry.schedFD) else { return }
        entry.schedAnchor = ns
        entry.cpuAnchor = cpu
        entry.anchored = true
    }

    /// The process's voluntary context switches: its one task's status (through a kept
    /// descriptor, and only when its run time moved), or the sum over its threads. Nil when
    /// gone or when the kernel does not print the line.
    private func switches(_ pid: Int32, _ sample: ProcessCPUSample) -> UInt64? {
        let processPath = "\(procfs.procPath)/\(pid)"
        guard sample.threadCount == 1, var entry = entries[pid] else {
            return sample.threadCount == 1 ? switches(path: processPath + "/status") : threadSwitches(processPath)
        }
        // schedstat gives run time in ns: unchanged means the task never ran, so never switched.
        if entry.anchored, let known = entry.switches, entry.switchesAtNanoseconds == sample.cpuNanoseconds { return known }
        if entry.statusFD < 0, openCount < maxOpenDescriptors,
           let fd = try? Syscalls.openForReading(processPath + "/status")
        {
            entry.statusFD = fd
            openCount += 1
        }
        let count: UInt64?
        if entry.statusFD >= 0 {
            count = (try? Syscalls.pread(entry.statusFD, into: buffer, at: 0, path: "/proc/PID/status")).flatMap { n in
                let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<n])
                // A status longer than the buffer (thousands of groups) is read whole instead.
                return ProcessStatus.voluntarySwitches(in: bytes) ?? (n == buffer.count ? switches(path: processPath + "/status") : nil)
            }
        } else {
            count = switches(path: processPath + "/status")
        }
        entry.switches = count
        entry.switchesAtNanoseconds = sample.cpuNanoseconds
        entries[pid] = entry
        return count
    }

    /// The sum over every thread still present; nil when none could be read.
    private func threadSwitches(_ processPath: String) -> UInt64? {
        guard let threads = try? Syscalls.listNumericEntries(processPath + "/task") else { return nil }
        var total: UInt64?
        for tid in threads {
            guard let count = switches(path: "\(processPath)/task/\(tid)/status") else { continue }
            total = ProcessStat.saturatingSum(total ?? 0, count)
        }
        return total
    }

    private func switches(path: String) -> UInt64? {
        guard let bytes = try? Syscalls.readFile(path, limit: 1 << 16) else { return nil }
        return bytes.withUnsafeBytes { ProcessStatus.voluntarySwitches(in: $0) }
    }

    /// Ticks to nanoseconds, saturating on absurd input.
    private func nanoseconds(_ ticks: UInt64) -> UInt64 {
        let (product, overflow) = ticks.multipliedReportingOverflow(by: nanosecondsPerTick)
        return overflow ? .max : product
    }

    private func makeSample(_ stat: ProcessStatFields, cpu: UInt64) -> ProcessCPUSample {
        ProcessCPUSample(
            pid: stat.pid, startTimeTicks: stat.startTimeTicks, cpuNanoseconds: cpu, state: stat.state,
            ppid: stat.ppid, flags: stat.flags, threadCount: stat.threadCount)
    }

    /// One pread and an allocation-free decode; nil when the process is gone or undecodable.
    private func readStat(_ fd: Int32, pid: Int32) -> ProcessStatFields? {
        guard let n = try? Syscalls.pread(fd, into: buffer, at: 0, path: "/proc/PID/stat"), n > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<n])
        guard let fields = try? ProcessStatFields.scan(bytes), fields.pid == pid else {
            lastUndecodableCount += 1
            return nil
        }
        return fields
    }

    /// The first field of /proc/PID/schedstat: time spent on the CPU, in nanoseconds.
    private func readSchedstat(_ fd: Int32) -> UInt64? {
        guard let n = try? Syscalls.pread(fd, into: buffer, at: 0, path: "/proc/PID/schedstat"), n > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<n])
        var end = 0
        while end < n, bytes[end] != UInt8(ascii: " ") { end += 1 }
        return try? ProcessStatFields.number(bytes, 0..<end, field: 1)
    }
}

extension ProcessStatFields {
    var cpuTicks: UInt64 { ProcessStat.saturatingSum(utimeTicks, stimeTicks) }
}
