/// The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) that CPU accounting needs.
public struct ProcessStat: Sendable, Hashable {
    /// PID, or TID for a task's stat.
    public var pid: Int32
    /// The command name (thread name for a task), at most 15 bytes, may hold spaces and `)`.
    public var comm: String
    public var state: ProcessState
    public var ppid: Int32
    /// The kernel's PF_* flags.
    public var flags: UInt32
    /// User and system CPU time in clock ticks (see `Syscalls.clockTicksPerSecond()`).
    public var utimeTicks: UInt64
    public var stimeTicks: UInt64
    public var threadCount: Int
    /// Start time in clock ticks after boot; with the PID, the process identity.
    public var startTimeTicks: UInt64

    public init(
        pid: Int32, comm: String, state: ProcessState, ppid: Int32, flags: UInt32,
        utimeTicks: UInt64, stimeTicks: UInt64, threadCount: Int, startTimeTicks: UInt64
    ) {
        self.pid = pid
        self.comm = comm
        self.state = state
        self.ppid = ppid
        self.flags = flags
        self.utimeTicks = utimeTicks
        self.stimeTicks = stimeTicks
        self.threadCount = threadCount
        self.startTimeTicks = startTimeTicks
    }

    /// PF_KTHREAD from include/linux/sched.h.
    public static let kernelThreadFlag: UInt32 = 0x0020_0000

    public var isKernelThread: Bool { flags & Self.kernelThreadFlag != 0 }
    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, startTimeTicks: startTimeTicks) }
    /// utime + stime, saturating rather than trapping on absurd input.
    public var cpuTicks: UInt64 { Self.saturatingSum(utimeTicks, stimeTicks) }

    static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Decodes a stat line. The command name is delimited by the first `(` and the LAST `)`,
    /// since a program may name itself `a) R 1 (b`.
    public static func parse(_ bytes: [UInt8]) throws(ProcessStatParseError) -> ProcessStat {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(ProcessStatParseError) -> ProcessStat in try parse(raw) }
        }
        return try result.get()
    }

    public static func parse(_ raw: UnsafeRawBufferPointer) throws(ProcessStatParseError) -> ProcessStat {
        let fields = try ProcessStatFields.scan(raw)
        let comm = String(decoding: UnsafeRawBufferPointer(rebasing: raw[fields.commRange]), as: UTF8.self)
        return ProcessStat(
            pid: fields.pid, comm: comm, state: fields.state, ppid: fields.ppid, flags: fields.flags,
            utimeTicks: fields.utimeTicks, stimeTicks: fields.stimeTicks,
            threadCount: fields.threadCount, startTimeTicks: fields.startTimeTicks)
    }
}

/// The allocation-free scan behind `ProcessStat.parse`, used directly by the sampler's hot path.
struct ProcessStatFields {
    var pid: Int32 = 0
    var commRange: Range<Int> = 0..<0
    var state = ProcessState(code: 0)
    var ppid: Int32 = 0
    var flags: UInt32 = 0
    var utimeTicks: UInt64 = 0
    var stimeTicks: UInt64 = 0
    var threadCount = 0
    var startTimeTicks: UInt64 = 0

    static func scan(_ raw: UnsafeRawBufferPointer) throws(ProcessStatParseError) -> ProcessStatFields {
        let count = raw.count
        guard count > 0 else { throw .empty }
        let close = lastCloseParenthesis(raw)
        guard close > 0 else { throw .missingCommand }
        var open = 0
        while open < close && raw[open] != UInt8(ascii: "(") { open += 1 }
        guard open < close else { throw .missingCommand }

        var result = ProcessStatFields()
        // PID: decimal digits, optionally followed by spaces, before "(".
        var pid: UInt64 = 0
        var digits = 0
        var index = 0
        while index < open, raw[index] != UInt8(ascii: " ") {
            let byte = raw[index]
            guard byte >= 0x30, byte <= 0x39, digits < 10 else { throw .badPID }
            pid = pid * 10 + UInt64(byte - 0x30)
            digits += 1
            index += 1
        }
        guard digits > 0, pid > 0, pid <= UInt64(Int32.max) else { throw .badPID }
        result.pid = Int32(pid)
        result.commRange = (open + 1)..<close

        // Fields 3... after ") ", separated by single spaces; stop once field 22 is read.
        index = close + 1
        var field = 3
        while field <= 22 {
            while index < count && raw[index] == UInt8(ascii: " ") { index += 1 }
            guard index < count, raw[index] != UInt8(ascii: "\n") else { throw .truncated(field: field) }
            let start = index
            while index < count && raw[index] != UInt8(ascii: " ") && raw[index] != UInt8(ascii: "\n") {
                index += 1
            }
            switch field {
            case 3:
                guard index - start == 1 else { throw .badNumber(field: 3) }
                result.state = ProcessState(code: raw[start])
            case 4:
                let value = try number(raw, start..<index, field: 4)
                guard value <= UInt64(Int32.max) else { throw .badNumber(field: 4) }
                result.ppid = Int32(value)
            case 9:
                let value = try number(raw, start..<index, field: 9)
                guard value <= UInt64(UInt32.max) else { throw .badNumber(field: 9) }
                result.flags = UInt32(value)
            case 14: result.utimeTicks = try number(raw, start..<index, field: 14)
            case 15: result.stimeTicks = try number(raw, start..<index, field: 15)
            case 20:
                let value = try number(raw, start..<index, field: 20)
                guard value <= UInt64(Int32.max) else { throw .badNumber(field: 20) }
                result.threadCount = Int(value)
            case 22: result.startTimeTicks = try number(raw, start..<index, field: 22)
            default: break
            }
            field += 1
        }
        return result
    }

    /// The index of the last `)`, or -1. The name sits near the start of a ~300-byte line,
    /// so this scans backwards eight bytes at a time (a zero-byte test on `word ^ 0x29…`):
    /// the byte-wise loop was the largest cost of decoding.
    @inline(__always)
    static func lastCloseParenthesis(_ raw: UnsafeRawBufferPointer) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let pattern: UInt64 = 0x2929_2929_2929_2929
        var end = raw.count  // bytes [end, count) are known to hold no ')'
        while end >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self) ^ pattern
            if (word &- ones) & ~word & highs != 0 { break }  // some byte in this word is ')'
            end -= 8
        }
        var index = end - 1
        while index >= 0 && raw[index] != UInt8(ascii: ")") { index -= 1 }
        return index
    }

    /// An unsigned decimal, rejecting signs, garbage and overflow.
    @inline(__always)
    static func number(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, field: Int)
        throws(ProcessStatParseError) -> UInt64
    {
        guard !range.isEmpty else { throw .badNumber(field: field) }
        var value: UInt64 = 0
        for index in range {
            let byte = raw[index]
            guard byte >= 0x30, byte <= 0x39 else { throw .badNumber(field: field) }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            guard !o1, !o2 else { throw .badNumber(field: field) }
            value = sum
        }
        return value
    }
}
