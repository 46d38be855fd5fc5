import Foundation
import JouleHardware

/// A throwaway, writable fixture root with the kernel's power knobs (platform_profile, cpufreq
/// policies, intel_pstate, boost, ASPM, USB power control) and a boot id, in the shapes of
/// the machines Low Power Mode runs on; plus a runtime directory beside it for the journal.
/// Removed when released.
public final class KnobTree: Sendable {
    public let tree: ProcTree

    public init() throws {
        tree = try ProcTree()
        try write("proc/sys/kernel/random/boot_id", "6f1c9a52-1c3e-4a8e-9d3b-0b7f1e2a4c11\n")
    }

    public var path: String { tree.path }
    public var root: FileRoot { FileRoot(tree.path) }
    /// Where tests keep the runtime directory (outside the fixture's sys/ and proc/).
    public var runtimeDirectory: String { tree.path + "/run/joule" }

    public func write(_ relative: String, _ text: String) throws { try tree.write(relative, text) }

    public func read(_ relative: String) throws -> String {
        try String(contentsOf: tree.root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Replaces `relative` with a symbolic link to `target`.
    public func link(_ relative: String, to target: String) throws {
        let url = tree.root.appendingPathComponent(relative)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
    }

    /// Replaces `relative` with an empty directory.
    public func makeDirectory(_ relative: String) throws {
        let url = tree.root.appendingPathComponent(relative)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Every regular file under sys/, by relative path, with its contents.
    public func sysFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        let base = tree.root.appendingPathComponent("sys").path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return files }
        for case let relative as String in walker {
            let full = base + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let text = try? String(contentsOfFile: full, encoding: .utf8) else { continue }
            files["sys/" + relative] = text
        }
        return files
    }

    public static let cpufreq = "sys/devices/system/cpu/cpufreq"

    /// One cpufreq policy directory.
    public func policy(
        _ index: Int, governor: String, governors: String, epp: String? = nil,
        preferences: String = "default performance balance_performance balance_power power",
        boost: String? = nil, minKHz: Int, maxKHz: Int
    ) throws {
        let dir = Self.cpufreq + "/policy\(index)/"
        try write(dir + "scaling_governor", governor + "\n")
        try write(dir + "scaling_available_governors", governors + "\n")
        if let epp {
            try write(dir + "energy_performance_preference", epp + "\n")
            try write(dir + "energy_performance_available_preferences", preferences + "\n")
        }
        if let boost { try write(dir + "boost", boost + "\n") }
        try write(dir + "cpuinfo_min_freq", "\(minKHz)\n")
        try write(dir + "cpuinfo_max_freq", "\(maxKHz)\n")
        try write(dir + "scaling_min_freq", "\(minKHz)\n")
        try write(dir + "scaling_max_freq", "\(maxKHz)\n")
    }

    /// A laptop on intel_pstate (active): two policies with EPP under the `performance`
    /// governor, `no_turbo`, and an ACPI platform profile offering `low-power`.
    public static func intelLaptop() throws -> KnobTree {
        let tree = try KnobTree()
        try tree.write("sys/firmware/acpi/platform_profile", "balanced\n")
        try tree.write("sys/firmware/acpi/platform_profile_choices", "low-power balanced performance\n")
        for index in 0..<2 {
            try tree.policy(index, governor: "performance", governors: "performance powersave", epp: "performance",
                            minKHz: 400_000, maxKHz: 4_600_000)
        }
        try tree.write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n")
        try tree.write("sys/devices/system/cpu/intel_pstate/status", "active\n")
        return tree
    }

    /// An AMD laptop on amd-pstate-epp: EPP under `powersave`, the global `cpufreq/boost`, and
    /// a platform profile offering `quiet` but not `low-power`; PCIe ASPM and a USB device.
    public static func amdLaptop() throws -> KnobTree {
        let tree = try KnobTree()
        try tree.write("sys/firmware/acpi/platform_profile", "balanced\n")
        try tree.write("sys/firmware/acpi/platform_profile_choices", "quiet balanced performance\n")
        for index in 0..<2 {
            try tree.policy(index, governor: "powersave", governors: "performance powersave", epp: "balance_performance",
                            minKHz: 400_000, maxKHz: 5_100_000)
        }
        try tree.write("sys/devices/system/cpu/cpufreq/boost", "1\n")
        try tree.write("sys/module/pcie_aspm/parameters/policy", "[default] performance powersave powersupersave\n")
        try tree.write("sys/bus/usb/devices/1-1/power/control", "on\n")
        try tree.write("sys/bus/usb/devices/1-1:1.0/bInterfaceClass", "03\n")
        return tree
    }

    /// A Raspberry Pi 4: cpufreq-dt without EPP, `conservative` among its governors.
    public static func raspberryPi() throws -> KnobTree {
        let tree = try KnobTree()
        try tree.policy(0, governor: "ondemand", governors: "conservative ondemand userspace powersave performance schedutil",
                        minKHz: 600_000, maxKHz: 1_500_000)
        return tree
    }

    /// A board with neither EPP nor `conservative`: only the maximum frequency can be capped.
    public static func cappedBoard() throws -> KnobTree {
        let tree = try KnobTree()
        try tree.policy(0, governor: "performance", governors: "ondemand performance", minKHz: 600_000, maxKHz: 1_800_000)
        return tree
    }
}
