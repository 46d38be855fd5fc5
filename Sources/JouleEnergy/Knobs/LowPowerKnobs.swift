import JouleHardware

/// The planner: which knobs enact Low Power Mode on this machine, and what to write, from
/// what the tree offers and the configuration. Pure over a `PowerKnobInventory`; the order of
/// the plan is the order of application (a governor before the EPP that needs it), and the
/// actuator restores in reverse.
public struct LowPowerKnobs: Sendable {
    public static let platformProfilePreference = ["low-power", "quiet", "cool"]
    public static let aspmPreference = ["powersupersave", "powersave"]

    public var configuration: LowPowerKnobConfiguration

    public init(configuration: LowPowerKnobConfiguration = LowPowerKnobConfiguration()) {
        self.configuration = configuration
    }

    /// The plan for the tree under `root`.
    public func plan(root: FileRoot) -> [KnobWrite] {
        plan(PowerKnobInventory.read(root: root))
    }

    /// The plan for what `inventory` offers.
    public func plan(_ inventory: PowerKnobInventory) -> [KnobWrite] {
        let config = configuration
        var writes: [KnobWrite] = []
        if config.platformProfile, let choices = inventory.platformProfileChoices,
           let profile = Self.platformProfilePreference.first(where: choices.contains) {
            writes.append(KnobWrite(knob: "platform_profile", path: PowerKnobInventory.platformProfile, value: profile))
        }
        for policy in inventory.policies where policy.energyPerformancePreference != nil {
            guard config.energyPerformancePreference, policy.availablePreferences.contains("power") else { continue }
            if policy.governor == "performance",
               policy.availableGovernors.isEmpty || policy.availableGovernors.contains("powersave") {
                writes.append(KnobWrite(knob: "scaling_governor", path: policy.file("scaling_governor"), value: "powersave"))
            }
            writes.append(KnobWrite(
                knob: "energy_performance_preference", path: policy.file("energy_performance_preference"), value: "power"))
        }
        if config.turbo {
            if inventory.hasNoTurbo {
                writes.append(KnobWrite(knob: "no_turbo", path: PowerKnobInventory.noTurbo, value: "1"))
            }
            if inventory.hasGlobalBoost {
                writes.append(KnobWrite(knob: "boost", path: PowerKnobInventory.globalBoost, value: "0"))
            } else {
                for policy in inventory.policies where policy.hasBoost {
                    writes.append(KnobWrite(knob: "boost", path: policy.file("boost"), value: "0"))
                }
            }
        }
        for policy in inventory.policies where policy.energyPerformancePreference == nil {
            if policy.availableGovernors.contains("conservative") {
                if config.conservativeGovernor {
                    writes.append(KnobWrite(knob: "scaling_governor", path: policy.file("scaling_governor"), value: "conservative"))
                }
            } else if config.maxFrequencyCap, let cap = Self.frequencyCap(policy, percent: config.maxFrequencyPercent) {
                writes.append(KnobWrite(knob: "scaling_max_freq", path: policy.file("scaling_max_freq"), value: String(cap)))
            }
        }
        if config.pcieASPM, let choices = inventory.aspmPolicies,
           let policy = Self.aspmPreference.first(where: choices.contains) {
            writes.append(KnobWrite(knob: "pcie_aspm", path: PowerKnobInventory.pcieASPMPolicy, value: policy))
        }
        if config.usbAutosuspend {
            for control in inventory.usbPowerControls {
                writes.append(KnobWrite(knob: "usb_autosuspend", path: control, value: "auto"))
            }
        }
        for extra in config.extra {
            writes.removeAll { $0.path == extra.path }
            writes.append(KnobWrite(knob: "extra", path: extra.path, value: extra.value))
        }
        return writes
    }

    /// The larger of `cpuinfo_min_freq` and `percent` of `cpuinfo_max_freq`, in kHz; nil
    /// without a maximum, or when `scaling_max_freq` is already at or below it.
    public static func frequencyCap(_ policy: CPUFreqPolicy, percent: Int) -> Int? {
        guard let maximum = policy.cpuinfoMaxKHz, maximum > 0 else { return nil }
        let cap = max(policy.cpuinfoMinKHz ?? 0, maximum * percent / 100)
        if let current = policy.scalingMaxKHz, current <= cap { return nil }
        return cap
    }
}
