import ArgumentParser
import JouleHardware

/// `--root DIR` as every command reads it: a fixture tree, checked before anything runs, or the
/// live system through libudev.
struct DeviceRoot {
    let source: any DeviceSource
    /// Where `proc/` lives: the tree's root, or `/`.
    let procRoot: String
    let isFixture: Bool

    /// Exits with status 2 (the user named it) and a message naming the path and errno when the
    /// tree cannot be opened, or when it holds neither `sys/` nor `proc/`: a directory above the
    /// fixtures (`hw-fixtures`) would read as a machine without devices, cores or usage.
    init(_ root: String?) throws {
        guard let root else {
            source = UdevDeviceSource()
            procRoot = "/"
            isFixture = false
            return
        }
        let fixture = SysfsDeviceSource(root: root)
        do {
            try fixture.checkRoot()
        } catch {
            let place = error.path == root ? "" : "\(error.path): "
            throw JouleExit.input("cannot read root \(root): \(place)\(error.errno.map(String.init(describing:)) ?? error.description)")
        }
        guard FileSystem.kind(of: root + "/sys") == .directory || FileSystem.kind(of: root + "/proc") == .directory else {
            throw JouleExit.input("root \(root) holds neither sys/ nor proc/: not a machine's tree (a fixture such as hw-fixtures/NAME holds them)")
        }
        source = fixture
        procRoot = root
        isFixture = true
    }
}
