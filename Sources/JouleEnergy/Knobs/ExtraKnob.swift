/// A `path: value` pair from the configuration: any control file joule should write in Low
/// Power Mode (and restore after), beyond the knobs it knows.
public struct ExtraKnob: Sendable, Hashable {
    /// The kernel's path, e.g. `/sys/class/drm/card0/device/power_dpm_force_performance_level`.
    public var path: String
    public var value: String

    public init(path: String, value: String) {
        self.path = path
        self.value = value
    }
}
