/// One hwmon temperature input (`/sys/class/hwmon/hwmonN/tempK_input`), as `sensors` shows it.
public struct HwmonSensor: Sendable, Hashable {
    /// The hwmon device, e.g. `hwmon3`.
    public var device: String
    /// The chip name from the `name` attribute, e.g. `coretemp`, `k10temp`, `nvme`.
    public var chip: String?
    /// The input, e.g. `temp1`.
    public var input: String
    /// `tempK_label`, e.g. `Package id 0`, `Tctl`, `Composite`.
    public var label: String?
    public var temperatureC: Double?
    /// `tempK_max`: the high limit, treated like a passive trip.
    public var maxC: Double?
    /// `tempK_crit`: the critical limit, treated like a critical trip.
    public var criticalC: Double?
    /// Why `temperatureC` is nil.
    public var error: String?

    public init(
        device: String, chip: String?, input: String, label: String?, temperatureC: Double?,
        maxC: Double?, criticalC: Double?, error: String?
    ) {
        self.device = device
        self.chip = chip
        self.input = input
        self.label = label
        self.temperatureC = temperatureC
        self.maxC = maxC
        self.criticalC = criticalC
        self.error = error
    }

    /// `hwmon3/temp1`, the name used in causes and events.
    public var name: String { "\(device)/\(input)" }
}
