/// Activity Monitor's Energy Impact, for machines where nothing measures power: a unitless
/// score from CPU time and wakeups, higher is worse.
///
///     energyImpact = cpuPercent + 0.02 × wakeupsPerS
///
/// The weights are the defaults macOS ships in /usr/share/pmenergy (`kcpu_time` 1.0 per CPU
/// second, `kcpu_wakeups` 2.0e-4 per wakeup, as Mozilla's "Activity Monitor, Battery Status Menu
/// and top" and the Green Coding powermetrics notes read them): a wakeup costs as much as 200 µs
/// of CPU time, the price of leaving and re-entering a deep idle state. In percent of one core
/// per second that is 100 × 2.0e-4 = 0.02 per wakeup/s, so 50 wakeups/s weigh as 1 % CPU.
/// Disk, network and GPU terms of macOS's formula are left out: Linux does not charge them to a
/// process cheaply.
public enum EnergyImpact {
    /// Percent of one core per wakeup per second.
    public static let wakeupWeight = 0.02

    /// nil when the wakeups are unknown: a score from CPU alone would look complete and be low.
    public static func score(cpuPercent: Double, wakeupsPerSecond: Double?) -> Double? {
        guard let wakeupsPerSecond else { return nil }
        return cpuPercent + wakeupWeight * wakeupsPerSecond
    }
}
