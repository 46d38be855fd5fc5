/// What one cpufreq policy (`/sys/devices/system/cpu/cpufreq/policyN`) offers as Low Power
/// Mode knobs. nil and empty mean the file is missing or unreadable.
public struct CPUFreqPolicy: Sendable, Hashable {
    /// `policy0`.
    public var name: String
    /// The kernel's path of the policy directory.
    public var directory: String
    /// `scaling_governor`.
    public var governor: String?
    /// `scaling_available_governors`.
    public var availableGovernors: [String]
    /// `energy_performance_preference`; nil when the driver has no EPP.
    public var energyPerformancePreference: String?
    /// `energy_performance_available_preferences`.
    public var availablePreferences: [String]
    /// Whether the policy has its own `boost` file (acpi-cpufreq on newer kernels, amd-pstate).
    public var hasBoost: Bool
    /// `cpuinfo_min_freq` and `cpuinfo_max_freq`, in kHz.
    public var cpuinfoMinKHz: Int?
    public var cpuinfoMaxKHz: Int?
    /// `scaling_max_freq`, in kHz.
    public var scalingMaxKHz: Int?

    public init(
        name: String, directory: String, governor: String? = nil, availableGovernors: [String] = [],
        energyPerformancePreference: String? = nil, availablePreferences: [String] = [], hasBoost: Bool = false,
        cpuinfoMinKHz: Int? = nil, cpuinfoMaxKHz: Int? = nil, scalingMaxKHz: Int? = nil
    ) {
        self.name = name
        self.directory = directory
        self.governor = governor
        self.availableGovernors = availableGovernors
        self.energyPerformancePreference = energyPerformancePreference
        self.availablePreferences = availablePreferences
        self.hasBoost = hasBoost
        self.cpuinfoMinKHz = cpuinfoMinKHz
        self.cpuinfoMaxKHz = cpuinfoMaxKHz
        self.scalingMaxKHz = scalingMaxKHz
    }

    /// The kernel's path of one of the policy's files.
    public func file(_ name: String) -> String { directory + "/" + name }

    /// Reads the policy directory `directory` (a kernel path) under `root`.
    public static func read(root: FileRoot, directory: String) -> CPUFreqPolicy {
        func text(_ name: String) -> String? { try? Syscalls.readText(root.path(directory + "/" + name)) }
        let name = directory.split(separator: "/").last.map(String.init) ?? directory
        return CPUFreqPolicy(
            name: name, directory: directory,
            governor: text("scaling_governor").map(KnobText.current),
            availableGovernors: text("scaling_available_governors").map(KnobText.words) ?? [],
            energyPerformancePreference: text("energy_performance_preference").map(KnobText.current),
            availablePreferences: text("energy_performance_available_preferences").map(KnobText.words) ?? [],
            hasBoost: Syscalls.kind(of: root.path(directory + "/boost")) == .regular,
            cpuinfoMinKHz: text("cpuinfo_min_freq").flatMap(KnobText.integer),
            cpuinfoMaxKHz: text("cpuinfo_max_freq").flatMap(KnobText.integer),
            scalingMaxKHz: text("scaling_max_freq").flatMap(KnobText.integer))
    }
}
