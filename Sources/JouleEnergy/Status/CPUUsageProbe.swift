import JouleHardware

/// How `joule status`, reading the hardware itself, gets CPU usage without sleeping 0.2 s
/// between two /proc/stat samples:
/// - usage since the sample the previous status left in the runtime directory, when that
///   sample is 0.1–60 s old;
/// - else two samples 20 ms apart, when at least `minimumTicks` elapsed between them;
/// - else null. At USER_HZ 100 a tick is 10 ms, so 20 ms gives 2 ticks per core: on fewer
///   than 5 cores a first status reports null rather than a figure quantised to 25 or 50 %,
///   and the next one (within a minute) reports usage since this one. There the short sample
///   could never count enough ticks, so it is not taken at all: no sleep for a certain null.
/// A /proc/stat that did not move at all over a memo at least 0.1 s old, or over a short
/// sample that should have counted `minimumTicks`, is no live kernel's (every core counts 100
/// ticks a second, idle or busy): it is a fixture read through the live path (umockdev). Its
/// memo says so, and while it stays exactly as it was no status sleeps for it again, however
/// soon after the last one it comes.
/// Every live call leaves its last sample for the next. `unpaused` reads twice back to back:
/// a fixture is static (null usage, as before), and an engine measures usage itself.
public struct CPUUsageProbe: Sendable {
    public static let memoAges: ClosedRange<Double> = 0.1...60
    public static let shortSample: Duration = .milliseconds(20)
    /// Ticks (all cores together) below which a usage figure is too coarse to show.
    public static let minimumTicks: UInt64 = 10
    /// The memo's name inside the runtime directory.
    public static let memoName = "cpu-stat"

    let memo: CPUStatMemo?
    let isUnpaused: Bool
    let now: @Sendable () -> UInt64
    let pause: @Sendable (Duration) -> Void
    let ticksPerSecond: Int

    /// - Parameters:
    ///   - memo: where the last sample is kept; nil without a runtime directory.
    ///   - now: CLOCK_MONOTONIC nanoseconds (injected in tests).
    ///   - pause: sleeps for the short sample (injected in tests).
    ///   - ticksPerSecond: /proc/stat's unit, USER_HZ (injected in tests).
    public init(
        memo: CPUStatMemo?, isUnpaused: Bool = false, now: @escaping @Sendable () -> UInt64 = CPUStatMemo.now,
        pause: @escaping @Sendable (Duration) -> Void = CurrentProcess.sleep(for:),
        ticksPerSecond: Int = CurrentProcess.clockTicksPerSecond
    ) {
        self.memo = memo
        self.isUnpaused = isUnpaused
        self.now = now
        self.pause = pause
        self.ticksPerSecond = ticksPerSecond
    }

    /// Whether a short sample on `cores` cores can count `minimumTicks` at all.
    func shortSampleCanCount(cores: Int) -> Bool {
        Double(cores) * Double(ticksPerSecond) * Self.shortSample.inSeconds >= Double(Self.minimumTicks)
    }

    /// Two reads back to back, no memo: a fixture tree, or an engine that measures usage itself.
    public static let unpaused = CPUUsageProbe(memo: nil, isUnpaused: true, now: { 0 }, pause: { _ in })

    /// The latest sample (for the core count) and the usage, nil when /proc/stat cannot be
    /// read or no figure is fine enough.
    public func measure(_ reader: CPUStatReader) -> (stat: CPUStat?, usagePercent: Double?) {
        guard let first = try? reader.read() else { return (nil, nil) }
        if isUnpaused {
            let second = try? reader.read()
            return (second ?? first, second?.usagePercent(since: first))
        }
        let firstTime = now()
        var usage: Double?
        var isStill = false
        if let entry = memo?.load(), firstTime >= entry.monotonicNanoseconds {
            let age = Double(firstTime - entry.monotonicNanoseconds) / 1e9
            let unmoved = first.all == entry.times
            if Self.memoAges.contains(age) {
                usage = Self.usage(first.all, since: entry.times)
                isStill = unmoved
            } else if age < Self.memoAges.lowerBound {
                // Too young to measure over, but a still stat found exactly as it was stays still.
                isStill = unmoved && entry.isStill
            }
        }
        var latest = (stat: first, time: firstTime)
        if usage == nil, !isStill, shortSampleCanCount(cores: first.cores) {
            pause(Self.shortSample)
            if let second = try? reader.read() {
                latest = (second, now())
                usage = Self.usage(second.all, since: first.all)
                isStill = second.all == first.all
            }
        }
        // A memo that cannot be written only costs the next status its short sample.
        try? memo?.save(CPUStatMemo.Entry(times: latest.stat.all, monotonicNanoseconds: latest.time, isStill: isStill))
        return (latest.stat, usage)
    }

    static func usage(_ now: CPUTimes, since earlier: CPUTimes) -> Double? {
        guard now.total >= earlier.total, now.total - earlier.total >= minimumTicks else { return nil }
        return now.usagePercent(since: earlier)
    }
}
