/// The usual unplug time for the coming morning, and the evidence for it.
public struct UnplugPrediction: Sendable, Equatable {
    /// The predicted unplug (Unix seconds) on `day`.
    public var unplug: Double
    /// When the battery should be full: `unplug` less `UnplugPredictor.margin`.
    public var fullBy: Double
    /// Median absolute deviation of the unplugs used, in seconds.
    public var spread: Double
    /// Overnight unplugs on `group` days among the last `considered` such days.
    public var matching: Int
    public var considered: Int
    /// "weekdays" or "weekend days".
    public var group: String
    /// Seconds east of UTC the times are shown in.
    public var utcOffset: Int

    /// "full by 07:30 (unplugged 07:45 ± 10 min on 9 of the last 10 weekdays)"
    public var description: String {
        let minutes = Int((spread / 60).rounded())
        return "full by \(UnplugPredictor.clock(fullBy, utcOffset)) (unplugged \(UnplugPredictor.clock(unplug, utcOffset)) ± \(minutes) min on \(matching) of the last \(considered) \(group))"
    }
}
