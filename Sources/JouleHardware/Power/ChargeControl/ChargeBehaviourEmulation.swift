/// A threshold the firmware lacks, held with `charge_behaviour`: `inhibit-charge` once the
/// level reaches the end, until it falls to the start; `auto` at or below the start. Between
/// the two the behaviour stays as it is, which is the hysteresis a start threshold gives.
public enum ChargeBehaviourEmulation {
    /// The behaviour to be in at `percent`, or nil to leave it (unknown level, or already right).
    public static func behaviour(percent: Double?, start: Int, end: Int, current: String?) -> String? {
        guard let percent, percent.isFinite else { return nil }
        let wanted: String
        if percent >= Double(end) {
            wanted = "inhibit-charge"
        } else if percent <= Double(start) {
            wanted = "auto"
        } else {
            return nil
        }
        return wanted == current ? nil : wanted
    }
}
