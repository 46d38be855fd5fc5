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
        let devices = try DeviceRoot(root)
        let source = devices.source, procRoot = devices.procRoot
        // A fixture is static: sampling /proc/stat twice needs no wait there.
        let pause: () -> Void = devices.isFixture ? {} : { CurrentProcess.sleep(for: .milliseconds(200)) }

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
