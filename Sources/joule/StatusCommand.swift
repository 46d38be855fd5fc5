import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule status [--root DIR] [--json]`: one snapshot of power, thermal state and CPU.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show batteries, line power, Low Power Mode, thermal state and CPU usage.",
        discussion: """
            Without --root, devices come from libudev and CPU usage from two /proc/stat samples \
            0.2 s apart. With --root, everything is read from a fixture tree (ROOT/sys, ROOT/proc).
            Exit status: 0 on success (even when some sensors fail), 1 when the root cannot be read.
            """)

    @Option(name: .long, help: ArgumentHelp("Read a fixture tree instead of the live system.", valueName: "dir"))
    var root: String?

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    func validate() throws {
        if let root, root.isEmpty { throw ValidationError("--root needs a directory") }
    }

    func run() throws {
        let source: any DeviceSource
        let procRoot: String
        let pause: () -> Void
        if let root {
            let fixture = SysfsDeviceSource(root: root)
            do {
                try fixture.checkRoot()
            } catch {
                Console.error("joule: cannot read root \(root): \(error.errno.map(String.init(describing:)) ?? error.description)")
                throw ExitCode(1)
            }
            source = fixture
            procRoot = root
            pause = {}  // A fixture is static: sampling twice needs no wait.
        } else {
            source = UdevDeviceSource()
            procRoot = "/"
            pause = { Syscalls.sleep(seconds: 0.2) }
        }

        let override = LowPowerCommand.store().map { $0.load() } ?? .auto
        let report: StatusReport
        do {
            report = try StatusReport.collect(source: source, procRoot: procRoot, lowPowerOverride: override, pause: pause)
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
        if json {
            Console.out(JSONValue.object(report.json).serialized)
        } else {
            Console.out(StatusTable.render(report))
        }
    }
}
