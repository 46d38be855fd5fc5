import Foundation
import JouleHardware
import JouleEnergy

/// A fixture machine's sys/ and proc/stat copied into a writable tree, with processes of our
/// own: RAPL, the batteries and /proc move only when a test writes them.
public final class EnergyTree {
    public let tree: ProcTree
    public var path: String { tree.path }
    public static let fixtures = PackageRoot.url.appendingPathComponent("hw-fixtures").path
    public static let xps = "dell-xps-13-low-battery-discharging"
    public static let intelRange: UInt64 = 262_143_328_850

    public init(_ machine: String) throws {
        tree = try ProcTree()
        try FileManager.default.copyItem(atPath: Self.fixtures + "/\(machine)/sys", toPath: tree.path + "/sys")
        try node(busy: 1000, idle: 9000)
    }

    public func node(busy: UInt64, idle: UInt64) throws {
        try tree.write("proc/stat", "cpu  \(busy) 0 0 \(idle) 0 0 0 0 0 0\ncpu0 \(busy) 0 0 \(idle) 0 0 0 0 0 0\n")
    }

    public func energy(_ zone: String, _ microjoules: UInt64) throws {
        try tree.write("sys/class/powercap/\(zone)/energy_uj", "\(microjoules)\n")
    }

    public func process(_ pid: Int32, _ comm: String, utime: UInt64, switches: UInt64, cgroup: String) throws {
        if FileManager.default.fileExists(atPath: tree.path + "/proc/\(pid)") {
            try tree.update(pid: pid, comm: comm, utime: utime)
            try tree.write("proc/\(pid)/status", ProcTree.statusText(pid: pid, comm: comm, voluntarySwitches: switches))
        } else {
            try tree.addProcess(pid: pid, comm: comm, utime: utime, cgroup: cgroup, voluntarySwitches: switches)
        }
    }

    public var source: SysfsDeviceSource { SysfsDeviceSource(root: path) }

    /// A meter over this tree (clock ticks of 1/100 s, as the stat lines are written).
    public func meter(_ clock: any JouleClock, readRAPL: (@Sendable (String) throws(HardwareError) -> [UInt8])? = nil) -> ProcessEnergyMeter {
        ProcessEnergyMeter(source: source, root: FileRoot(path), procRoot: path, clock: clock, readRAPL: readRAPL, ticksPerSecond: 100)
    }

    /// A Raspberry Pi (nothing measures power) running one process.
    public static func pi(_ pid: Int32, _ comm: String, cgroup: String) throws -> (EnergyTree, ManualClock, ProcessEnergyMeter) {
        let tree = try EnergyTree("raspberry-pi-4-no-battery")
        try tree.process(pid, comm, utime: 0, switches: 0, cgroup: cgroup)
        let clock = ManualClock()
        return (tree, clock, tree.meter(clock))
    }

    /// What an unprivileged process reads since CVE-2020-8694: EACCES on every `energy_uj`.
    public static let unprivileged: @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
        if path.hasSuffix("/energy_uj") { throw HardwareError(operation: "open", path: path, errno: .permissionDenied) }
        return try FileSystem.readBytes(path)
    }

    public static let editorScope = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-editor-4242.scope"
}
