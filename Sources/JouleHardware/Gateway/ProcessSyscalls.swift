#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CJouleShims
import SystemPackage
import JouleWire

// MARK: processes

/// Process, signal and atomic-write wrappers of the `Syscalls` gateway.
extension Syscalls {
    /// sysconf(_SC_CLK_TCK): the unit of utime/stime/starttime in /proc/PID/stat.
    /// Falls back to 100, the value on every Linux ABI, should sysconf ever fail.
    static func clockTicksPerSecond() -> Int {
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return ticks > 0 ? ticks : 100
    }

    static func processID() -> Int32 { getpid() }
    static func parentProcessID() -> Int32 { getppid() }
    static func realUserID() -> UInt32 { getuid() }
    static func effectiveUserID() -> UInt32 { geteuid() }

    /// The numeric entries of a directory (PIDs in /proc, TIDs in /proc/PID/task), unsorted.
    /// Parses d_name in place: listing /proc is on the per-sample path, so no String per entry.
    static func listNumericEntries(_ path: String) throws(HardwareError) -> [Int32] {
        guard let dir = opendir(path) else {
            throw HardwareError(operation: "opendir", path: path, errno: .current)
        }
        defer { closedir(dir) }
        var result: [Int32] = []
        while let entry = readdir(dir) {
            let value: Int32? = withUnsafeBytes(of: entry.pointee.d_name) { name in
                var n: Int64 = 0
                var digits = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 0x30, byte <= 0x39, digits < 10 else { return nil }
                    n = n * 10 + Int64(byte - 0x30)
                    digits += 1
                }
                guard digits > 0, n <= Int64(Int32.max) else { return nil }
                return Int32(n)
            }
            if let value { result.append(value) }
        }
        return result
    }

    /// fstat(2)'s link count of an open descriptor; nil on error. For a /proc/PID/task
    /// directory the kernel reports 2 + the number of threads, which makes a one-syscall
    /// thread count.
    static func linkCount(_ fd: Int32) -> Int? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return Int(info.st_nlink)
    }

    /// The soft RLIMIT_NOFILE, or nil when unlimited or unknown; the sampler keeps one
    /// descriptor per process open and must stay well below it.
    static func openFileLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// pidfd_open(2) through the C shim: a descriptor that names this process and never a
    /// later owner of its PID. Throws ESRCH when the process is gone, ENOSYS without pidfds.
    static func pidfdOpen(_ pid: Int32) throws(HardwareError) -> Int32 {
        let fd = joule_pidfd_open(pid, 0)
        guard fd >= 0 else { throw HardwareError(operation: "pidfd_open", path: "pid \(pid)", errno: .current) }
        return fd
    }

    /// pidfd_send_signal(2) through the C shim. ESRCH means the process has exited (it may
    /// be a zombie).
    static func pidfdSendSignal(_ pidfd: Int32, signal: Int32, pid: Int32) throws(HardwareError) {
        guard joule_pidfd_send_signal(pidfd, signal, nil, 0) == 0 else {
            throw HardwareError(operation: "pidfd_send_signal", path: "pid \(pid)", errno: .current)
        }
    }

    /// mkdir -p with `mode` for each created level.
    static func makeDirectories(_ path: String, mode: UInt32 = 0o755) throws(HardwareError) {
        if kind(of: path) == .directory { return }
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode_t(mode)) != 0 && errno != EEXIST {
                throw HardwareError(operation: "mkdir", path: prefix, errno: .current)
            }
        }
        guard kind(of: path) == .directory else {
            throw HardwareError(operation: "mkdir", path: path, errno: Errno(ENOTDIR))
        }
    }

    /// Writes `text` into an existing file in place (open O_WRONLY|O_TRUNC), as control files
    /// such as cgroup `cpu.max` require: they cannot be replaced by rename.
    static func writeControlFile(_ path: String, _ text: String) throws(HardwareError) {
        let fd = try open(path, .writeOnly, options: .truncate)
        defer { close(fd) }
        try writeAll(fd, Array(text.utf8), path: path)
    }

    /// uname(2): kernel release and machine, e.g. ("6.1.0-18-amd64", "x86_64").
    static func kernelRelease() -> (release: String, machine: String)? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return (text(names.release), text(names.machine))
    }

    /// signal(2) with SIG_IGN, so a Dispatch signal source alone sees the signal.
    static func ignoreSignal(_ signal: Int32) { _ = Glibc.signal(signal, SIG_IGN) }

    // MARK: stopped-process guard

    /// PIDs this process has stopped with SIGSTOP, readable from a signal handler: a fixed table
    /// of aligned Int32 slots (0 = free), written only by the single owner of throttling.
    nonisolated(unsafe) private static var stoppedTable: UnsafeMutablePointer<Int32> = {
        let table = UnsafeMutablePointer<Int32>.allocate(capacity: stoppedTableCapacity)
        table.initialize(repeating: 0, count: stoppedTableCapacity)
        return table
    }()
    private static let stoppedTableCapacity = 1024
    nonisolated(unsafe) private static var guardInstalled = false

    /// Installs handlers for the crash signals and the other fatal-by-default signals that
    /// send SIGCONT to every PID in the table, then die of the original signal: a monitor
    /// that crashes never leaves a process stopped (SIGKILL alone cannot be caught). Also
    /// ignores SIGPIPE. Call once, from the main thread, at startup.
    static func installStoppedProcessGuard() {
        if guardInstalled { return }
        guardInstalled = true
        _ = stoppedTable
        let handler: @convention(c) (Int32) -> Void = { signal in
            let table = Syscalls.stoppedTable
            for index in 0..<Syscalls.stoppedTableCapacity where table[index] > 0 {
                _ = kill(table[index], SIGCONT)  // async-signal-safe
            }
            _ = Glibc.signal(signal, SIG_DFL)
            _ = raise(signal)
        }
        // Crashes (a Swift trap is SIGILL or SIGTRAP), and every other signal whose default
        // action ends the process, except those the caller handles (SIGINT, SIGTERM, SIGHUP).
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSYS, SIGQUIT, SIGUSR1, SIGUSR2,
                       SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ] {
            _ = Glibc.signal(signal, handler)
        }
        // A closed stdout must not kill the monitor mid-cycle: writes fail with EPIPE instead.
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Orders the threads that mark and unmark: two claiming the same free slot at once lost
    /// one PID, which a crash then left stopped. The crash handler reads without it.
    // An Int, not (): under ThreadSanitizer a zero-sized value's inout access is reported at
    // the lock object's own address, where every caller reads its type, as a race (issue 33).
    private static let stoppedTableLock = Locked(0)

    /// Records `pid` as possibly stopped by us; false when the table is full.
    static func markPossiblyStopped(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return stoppedTableLock.withLock { _ in
            for index in 0..<stoppedTableCapacity where stoppedTable[index] == pid { return true }
            for index in 0..<stoppedTableCapacity where stoppedTable[index] == 0 {
                stoppedTable[index] = pid
                return true
            }
            return false
        }
    }

    /// Forgets `pid` once it has been continued for good (or has exited).
    static func unmarkPossiblyStopped(_ pid: Int32) {
        stoppedTableLock.withLock { _ in
            for index in 0..<stoppedTableCapacity where stoppedTable[index] == pid { stoppedTable[index] = 0 }
        }
    }

    /// Whether `pid` is recorded as possibly stopped (for tests of process control).
    static func isMarkedPossiblyStopped(_ pid: Int32) -> Bool {
        stoppedTableLock.withLock { _ in (0..<stoppedTableCapacity).contains { stoppedTable[$0] == pid } }
    }
}
