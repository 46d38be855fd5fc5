/// The battery at one edge of a sleep, as the daemon notes it just before suspend and just
/// after resume. Unknown values are nil, never 0.
public struct SleepNote: Sendable, Hashable {
    /// Unix seconds.
    public var time: Double
    /// The composite battery's energy (Wh).
    public var energyWh: Double?
    /// The composite battery's energy when full (Wh), to turn energy into percent.
    public var energyFullWh: Double?
    /// The composite battery's percentage, used when energy cannot give it.
    public var percentage: Double?

    public init(time: Double, energyWh: Double?, energyFullWh: Double? = nil, percentage: Double?) {
        self.time = time
        self.energyWh = energyWh
        self.energyFullWh = energyFullWh
        self.percentage = percentage
    }
}

/// One sleep: when, the battery's energy on each side, how fast it drained, why the machine
/// woke and in which mode it slept. Unknown values are nil, never 0; a sleep on a charger
/// that gained energy has a negative drain.
public struct SleepRecord: Sendable, Hashable {
    /// A sleep draining faster than this (percent of the full battery per hour) is flagged.
    public static let flagPercentPerHour = 2.0
    /// Sleeps shorter than this (seconds) are never flagged: over a few minutes one percent
    /// of rounding reads as tens of percent an hour.
    public static let flagMinimumSeconds = 600.0

    /// Unix seconds: the note before suspend and the note after resume.
    public var start: Double
    public var end: Double
    public var energyBeforeWh: Double?
    public var energyAfterWh: Double?
    /// Percent of the full battery lost per hour asleep.
    public var drainPercentPerHour: Double?
    /// Mean power drawn from the battery while asleep (W).
    public var drainW: Double?
    /// What woke the machine, as `SleepState.wakeReason` words it.
    public var wakeReason: String?
    /// `s2idle`, `deep` (or another `mem_sleep` mode); nil when the kernel did not say.
    public var mode: String?

    public init(
        start: Double, end: Double, energyBeforeWh: Double?, energyAfterWh: Double?, drainPercentPerHour: Double?, drainW: Double?,
        wakeReason: String?, mode: String?
    ) {
        self.start = start
        self.end = end
        self.energyBeforeWh = energyBeforeWh
        self.energyAfterWh = energyAfterWh
        self.drainPercentPerHour = drainPercentPerHour
        self.drainW = drainW
        self.wakeReason = wakeReason
        self.mode = mode
    }

    /// The sleep between two notes; nil when `after` is not later than `before` (a clock
    /// stepped back, or notes out of order). The percent rate comes from energy and full
    /// energy when both notes have them (the kernel's µWh are finer than its whole percent),
    /// otherwise from the percentages.
    public init?(before: SleepNote, after: SleepNote, wakeReason: String?, mode: String?) {
        let seconds = after.time - before.time
        guard seconds.isFinite, seconds > 0 else { return nil }
        let hours = seconds / 3600
        let usable: (Double?) -> Double? = { value in value.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        let energyBefore = usable(before.energyWh), energyAfter = usable(after.energyWh)
        var drainW: Double?
        var percentPerHour: Double?
        if let energyBefore, let energyAfter {
            drainW = (energyBefore - energyAfter) / hours
            let full = usable(before.energyFullWh) ?? usable(after.energyFullWh)
            if let full, full > 0 { percentPerHour = (energyBefore - energyAfter) / full * 100 / hours }
        }
        if percentPerHour == nil, let was = usable(before.percentage), let now = usable(after.percentage) {
            percentPerHour = (was - now) / hours
        }
        self.init(
            start: before.time, end: after.time, energyBeforeWh: energyBefore, energyAfterWh: energyAfter,
            drainPercentPerHour: percentPerHour, drainW: drainW, wakeReason: wakeReason, mode: mode)
    }

    public var seconds: Double { end - start }

    /// Drew more than `flagPercentPerHour` over at least `flagMinimumSeconds`; an unknown
    /// rate is never flagged.
    public var isFlagged: Bool {
        guard let rate = drainPercentPerHour, seconds >= Self.flagMinimumSeconds else { return false }
        return rate > Self.flagPercentPerHour
    }

    /// One line for the log and `joule history`, as
    /// `slept 8h 0m (deep): 2.4 %/h, 0.96 W, woke by ACPI LID0 (wakeup_count +1) — drains fast`.
    public var summary: String {
        // A record read back from a damaged history can hold any double: never trap converting it.
        let duration: String
        if seconds.isFinite, abs(seconds) < Self.integerLimit {
            let total = Int(seconds.rounded())
            duration = total >= 3600 ? "\(total / 3600)h \(total % 3600 / 60)m" : total >= 60 ? "\(total / 60)m \(total % 60)s" : "\(total)s"
        } else {
            duration = "\(seconds)s"
        }
        var text = "slept \(duration)"
        if let mode { text += " (\(mode))" }
        text += ": " + (drainPercentPerHour.map { Self.format($0) + " %/h" } ?? "drain unknown")
        if let drainW { text += ", " + Self.format(drainW) + " W" }
        text += ", woke by " + (wakeReason ?? "an unknown reason")
        if isFlagged { text += " — drains fast (over \(Self.format(Self.flagPercentPerHour)) %/h)" }
        return text
    }

    /// Beyond this magnitude a figure prints as the double it is (as `HistorySummary` does).
    static let integerLimit = 9e15

    /// Two decimals without a trailing `.00` run, as `2.4`, `0.96`, `-1`.
    public static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        guard hundredths.isFinite, abs(hundredths) < integerLimit else { return "\(value)" }
        if hundredths == 0 { return "0" }
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = Int(abs(hundredths))
        var text = sign + String(magnitude / 100)
        let fraction = magnitude % 100
        if fraction != 0 {
            text += "." + (fraction < 10 ? "0\(fraction)" : fraction % 10 == 0 ? "\(fraction / 10)" : "\(fraction)")
        }
        return text
    }
}
