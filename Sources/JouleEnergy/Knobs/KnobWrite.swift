/// One planned write: `value` into the control file at `path` (a kernel path), named by
/// `knob` (`platform_profile`, `scaling_governor`, `energy_performance_preference`,
/// `no_turbo`, `boost`, `scaling_max_freq`, `pcie_aspm`, `usb_autosuspend`, `extra`).
public struct KnobWrite: Sendable, Hashable {
    public var knob: String
    public var path: String
    public var value: String

    public init(knob: String, path: String, value: String) {
        self.knob = knob
        self.path = path
        self.value = value
    }
}
