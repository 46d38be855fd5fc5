/// When to let a held battery charge on to 100 %.
public enum ChargeReleasePlanner {
    /// With no measured rate, assume 10 %/h: charging slows above 80 % (constant voltage), and a
    /// slow guess only releases early, which costs a little wear, never a battery not full.
    public static let assumedRate = 10.0

    /// The release time: `prediction.fullBy` (predicted unplug less the margin) less the time to
    /// charge from max(`percent`, `end`) to 100 % at `ratePerHour` (this battery's recent
    /// charge rate in % per hour: energy rate over energy full; nil or ≤ 0: `assumedRate`).
    public static func release(_ prediction: UnplugPrediction, end: Int, percent: Double?, ratePerHour: Double?) -> Double {
        let rate = ratePerHour.flatMap { $0 > 0 ? $0 : nil } ?? assumedRate
        let from = max(percent ?? Double(end), Double(end))
        let hours = max(0, 100 - from) / rate
        return prediction.fullBy - hours * 3600
    }
}
