/// The brightness level a percentage cap allows.
public enum BrightnessCap {
    /// `percent` of `maximum`, rounded down, but never 0 (a backlight at 0 is off on many panels).
    public static func level(percent: Int, maximum: Int) -> Int {
        max(1, maximum * min(100, max(1, percent)) / 100)
    }
}
