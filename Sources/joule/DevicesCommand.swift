import ArgumentParser
import JouleHardware

/// `joule devices SUBSYSTEM [--root DIR]`: the raw device snapshots a reader sees, like
/// `udevadm info -a`; for checking fixtures and comparing the libudev path with the tree.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Print the raw device snapshots of one subsystem as JSON (debugging aid).",
        shouldDisplay: false)

    @Argument(help: "Kernel subsystem, e.g. power_supply, thermal, hwmon, dmi.")
    var subsystem: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Read a fixture tree instead of libudev.", valueName: "dir"))
    var root: String?

    func validate() throws {
        if subsystem.isEmpty || subsystem.contains("/") { throw ValidationError("not a subsystem name: '\(subsystem)'") }
    }

    func run() throws {
        let source = try DeviceRoot(root).source
        do {
            Console.out(DeviceSnapshotJSON.json(try source.devices(subsystem: subsystem)).serialized)
        } catch {
            Console.error("joule: \(error)")
            throw ExitCode(1)
        }
    }
}
