import JouleHardware

/// One SIGSTOP/SIGCONT duty cycle: in each slot of `period` the held work runs for the
/// first `duty` of it and is stopped for the rest. The duty follows the measured usage toward
/// the limit.
struct DutyCycle: Sendable {
    var duty: Double
    var stopped = false
    var slotStart = -Double.infinity
    var stopAt: Double?
    /// CPU time of the held work at the last adjustment, and when that was.
    var lastNanoseconds: UInt64
    var lastTime: Double

    init(duty: Double, nanoseconds: UInt64, time: Double) {
        self.duty = Self.clamp(duty)
        lastNanoseconds = nanoseconds
        lastTime = time
    }

    static func clamp(_ duty: Double) -> Double {
        guard duty.isFinite else { return 1 }
        return min(1, max(0.02, duty))
    }

    /// Moves the duty toward the limit from the usage since the last adjustment: work that
    /// used u cores while allowed to run a fraction d of the time would use u/d unheld, so
    /// d·limit/u holds it to the limit. Halfway steps avoid oscillation.
    mutating func adjust(nanoseconds: UInt64, time: Double, limitPercent: Double) {
        guard time > lastTime, nanoseconds >= lastNanoseconds else { return }
        let cores = Double(nanoseconds - lastNanoseconds) / 1e9 / (time - lastTime)
        let ideal = cores > 0.005 ? duty * (limitPercent / 100) / cores : duty * 2
        duty = Self.clamp((duty + ideal) / 2)
        lastNanoseconds = nanoseconds
        lastTime = time
    }

    /// Starts a new slot when the current one is over; true when one started.
    mutating func beginSlotIfDue(now: Double, period: Duration) -> Bool {
        guard now >= slotStart + period else { return false }
        slotStart = now
        stopAt = duty < 1 ? now + period * duty : nil
        return true
    }

    /// Whether the running part of the slot is over.
    func stopIsDue(now: Double) -> Bool {
        guard let stopAt, !stopped else { return false }
        return now >= stopAt
    }

    /// When the cycle next needs to act.
    func nextDue(period: Duration) -> Double { stopAt ?? (slotStart + period) }
}
