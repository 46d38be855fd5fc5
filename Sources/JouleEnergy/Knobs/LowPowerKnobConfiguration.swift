/// Which of joule's own knobs enact Low Power Mode where power-profiles-daemon is absent.
/// Every built-in CPU knob is on by default and can be turned off; the peripheral knobs
/// (PCIe ASPM, USB autosuspend) are off unless turned on; `extra` adds control files.
/// (The daemon's YAML configuration will decode into this value.)
public struct LowPowerKnobConfiguration: Sendable, Hashable {
    /// `platform_profile`: the first of low-power, quiet, cool that the firmware offers.
    public var platformProfile: Bool
    /// Each policy's `energy_performance_preference` = power, switching a `performance`
    /// governor to `powersave` first (EPP only takes under powersave).
    public var energyPerformancePreference: Bool
    /// `intel_pstate/no_turbo` = 1, and `cpufreq/boost` (or each policy's `boost`) = 0.
    public var turbo: Bool
    /// Without EPP: the `conservative` governor, when offered.
    public var conservativeGovernor: Bool
    /// Without EPP or conservative: cap `scaling_max_freq`.
    public var maxFrequencyCap: Bool
    /// The cap as a percentage of `cpuinfo_max_freq` (never below `cpuinfo_min_freq`).
    public var maxFrequencyPercent: Int
    /// `pcie_aspm/parameters/policy` = powersupersave (or powersave). Off by default.
    public var pcieASPM: Bool
    /// Each USB device's `power/control` = auto. Off by default.
    public var usbAutosuspend: Bool
    /// Further control files, written after the built-in knobs (replacing a built-in knob's
    /// value when they name the same file).
    public var extra: [ExtraKnob]

    public init(
        platformProfile: Bool = true, energyPerformancePreference: Bool = true, turbo: Bool = true,
        conservativeGovernor: Bool = true, maxFrequencyCap: Bool = true, maxFrequencyPercent: Int = 60,
        pcieASPM: Bool = false, usbAutosuspend: Bool = false, extra: [ExtraKnob] = []
    ) {
        self.platformProfile = platformProfile
        self.energyPerformancePreference = energyPerformancePreference
        self.turbo = turbo
        self.conservativeGovernor = conservativeGovernor
        self.maxFrequencyCap = maxFrequencyCap
        self.maxFrequencyPercent = maxFrequencyPercent
        self.pcieASPM = pcieASPM
        self.usbAutosuspend = usbAutosuspend
        self.extra = extra
    }

    /// Every knob turned off: only `extra` would be written.
    public static let none = LowPowerKnobConfiguration(
        platformProfile: false, energyPerformancePreference: false, turbo: false,
        conservativeGovernor: false, maxFrequencyCap: false)
}
