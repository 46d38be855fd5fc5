import JouleHardware

/// The daemon's account of sleeps: what it noted just before suspend, turned into a
/// `SleepRecord` by the note after resume. Pure; the daemon reads the battery, the wakeup
/// sources and `mem_sleep` and hands them in.
public struct SleepAccount: Sendable {
    /// The note before a sleep that has not ended yet.
    public struct Pending: Sendable, Hashable {
        public var note: SleepNote
        public var wakeups: WakeupSnapshot
        public var mode: String?
    }

    public private(set) var pending: Pending?
    /// Sleeps accounted since the daemon started.
    public private(set) var count = 0
    /// The last sleep accounted.
    public private(set) var last: SleepRecord?

    public init() {}

    /// The battery's composite as a note at `time`; no composite (no battery) gives a note of unknowns.
    public static func note(time: Double, _ composite: CompositeBattery?) -> SleepNote {
        SleepNote(time: time, energyWh: composite?.energyWh, energyFullWh: composite?.energyFullWh, percentage: composite?.percentage)
    }

    /// Just before sleep (logind's `PrepareForSleep(true)`). A second one without a resume
    /// between (a missed signal) replaces the first.
    public mutating func preparing(_ note: SleepNote, wakeups: WakeupSnapshot, mode: String?) {
        pending = Pending(note: note, wakeups: wakeups, mode: mode)
    }

    /// Just after resume (`PrepareForSleep(false)`): the sleep since the note before, with
    /// the wake reason from the wakeup sources that moved. nil when there was no note before
    /// (the daemon started while the machine slept) or the clock went back.
    public mutating func resumed(_ note: SleepNote, wakeups: WakeupSnapshot) -> SleepRecord? {
        guard let pending else { return nil }
        self.pending = nil
        guard
            let record = SleepRecord(
                before: pending.note, after: note, wakeReason: SleepState.wakeReason(before: pending.wakeups, after: wakeups),
                mode: pending.mode)
        else { return nil }
        count += 1
        last = record
        return record
    }
}
