import ArgumentParser
import JouleHardware

/// `--root DIR` as every command reads it: a fixture tree, checked before anything runs, or the
/// live system through libudev.
struct DeviceRoot {
    let source: any DeviceSource
    /// Where `proc/` lives: the tree's root, or `/`.
    let procRoot: String
    let isFixture: Bool

    /// Exits with status 1 and a message naming the path and errno when the tree cannot be read.
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
            Console.error("joule: cannot read root \(root): \(error.errno.map(String.init(describing:)) ?? error.description)")
            throw ExitCode(1)
        }
        source = fixture
        procRoot = root
        isFixture = true
    }
}
