/// The power knobs a machine offers, read under a root: the files power-profiles-daemon's
/// drivers use (platform_profile, EPP, turbo and boost), the cpufreq governors and limits a
/// single-board computer has instead, and the peripheral knobs. A plain value, so choosing
/// what to write is pure.
public struct PowerKnobInventory: Sendable, Hashable {
    public static let platformProfile = "/sys/firmware/acpi/platform_profile"
    public static let platformProfileChoices = "/sys/firmware/acpi/platform_profile_choices"
    public static let cpufreq = "/sys/devices/system/cpu/cpufreq"
    public static let noTurbo = "/sys/devices/system/cpu/intel_pstate/no_turbo"
    public static let globalBoost = "/sys/devices/system/cpu/cpufreq/boost"
    public static let pcieASPMPolicy = "/sys/module/pcie_aspm/parameters/policy"
    public static let usbDevices = "/sys/bus/usb/devices"

    /// `platform_profile_choices`; nil when the machine has no platform profile.
    public var platformProfileChoices: [String]?
    /// Whether `intel_pstate/no_turbo` exists.
    public var hasNoTurbo: Bool
    /// Whether `cpufreq/boost` exists.
    public var hasGlobalBoost: Bool
    /// The cpufreq policies, by name.
    public var policies: [CPUFreqPolicy]
    /// The choices of `pcie_aspm/parameters/policy`; nil without ASPM control.
    public var aspmPolicies: [String]?
    /// The kernel paths of every USB device's `power/control`, sorted.
    public var usbPowerControls: [String]

    public init(
        platformProfileChoices: [String]? = nil, hasNoTurbo: Bool = false, hasGlobalBoost: Bool = false,
        policies: [CPUFreqPolicy] = [], aspmPolicies: [String]? = nil, usbPowerControls: [String] = []
    ) {
        self.platformProfileChoices = platformProfileChoices
        self.hasNoTurbo = hasNoTurbo
        self.hasGlobalBoost = hasGlobalBoost
        self.policies = policies
        self.aspmPolicies = aspmPolicies
        self.usbPowerControls = usbPowerControls
    }

    /// Reads what `root` offers. Missing files are simply absent knobs.
    public static func read(root: FileRoot) -> PowerKnobInventory {
        func text(_ path: String) -> String? { try? Syscalls.readText(root.path(path)) }
        func isFile(_ path: String) -> Bool { Syscalls.kind(of: root.path(path)) == .regular }
        let policyNames = ((try? Syscalls.listDirectory(root.path(cpufreq))) ?? [])
            .filter { $0.hasPrefix("policy") && Int($0.dropFirst("policy".count)) != nil }
            .sorted { (Int($0.dropFirst(6)) ?? 0) < (Int($1.dropFirst(6)) ?? 0) }
        let usb = ((try? Syscalls.listDirectory(root.path(usbDevices))) ?? [])
            .map { usbDevices + "/" + $0 + "/power/control" }
            .filter(isFile)
        return PowerKnobInventory(
            platformProfileChoices: isFile(platformProfile) ? text(platformProfileChoices).map(KnobText.words) ?? [] : nil,
            hasNoTurbo: isFile(noTurbo),
            hasGlobalBoost: isFile(globalBoost),
            policies: policyNames.map { CPUFreqPolicy.read(root: root, directory: cpufreq + "/" + $0) },
            aspmPolicies: text(pcieASPMPolicy).map(KnobText.words),
            usbPowerControls: usb)
    }
}
