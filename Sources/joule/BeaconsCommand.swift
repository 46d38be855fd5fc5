import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule beacons`: Bluetooth LE beacon scanning, ranging, region monitoring and recording.
struct Beacons: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "Scan, range and monitor Bluetooth LE beacons (iBeacon, AltBeacon, Eddystone) with a duty-cycled radio.",
        subcommands: [BeaconsScan.self, BeaconsRange.self, BeaconsMonitor.self, BeaconsRecord.self]
    )
}

/// Where adverts come from, and how the radio is driven. Shared by every subcommand.
struct BeaconSourceOptions: ParsableArguments {
    @Option(help: "Replay a btsnoop capture (datalink 1001, 1002 or 2001) instead of scanning; capture time is the clock.")
    var replay: String?

    @Flag(help: "With --replay, pace the replay at the capture's real speed.")
    var realtime = false

    @Option(help: "Adapter to scan with, e.g. hci0 (default: the first LE adapter that is up).")
    var adapter: String?

    @Flag(help: "Active scanning (request scan responses); passive by default.")
    var active = false

    @Flag(help: "Use the LE extended scan commands (also chosen automatically when the controller refuses legacy ones).")
    var extended = false

    @Option(help: "Scan duty cycle WINDOW_MS/INTERVAL_MS (2.5 to 10240 ms), e.g. 30/300.")
    var duty: String?

    @Flag(help: "Scan as asked even in Low Power Mode or a serious or critical thermal state (live scans only).")
    var ignoreEnergyState = false

    func validate() throws {
        if realtime && replay == nil { throw ValidationError("--realtime only applies with --replay FILE") }
        if let duty {
            do throws(ScanDuty.SpecError) { _ = try ScanDuty(spec: duty) } catch { throw ValidationError(error.description) }
        }
    }

    var scanDuty: ScanDuty? { duty.flatMap { try? ScanDuty(spec: $0) } }

    /// The transport: a replay of the file, or the live adapter.
    func makeTransport() throws(HCITransportError) -> (any HCITransport, LiveHCITransport?) {
        if let replay { return (try ReplayHCITransport(path: replay), nil) }
        let live = try LiveHCITransport(adapter: adapter)
        return (live, live)
    }
}

/// Region specs shared by range and monitor.
struct RegionOptions: ParsableArguments {
    @Option(
        name: .customLong("region"), parsing: .upToNextOption,
        help: "Regions as NAME=UUID[:MAJOR[:MINOR]] or a bare UUID (repeatable).")
    var specs: [String] = []

    func validate() throws {
        guard !specs.isEmpty else { throw ValidationError("at least one --region NAME=UUID[:MAJOR[:MINOR]] is required") }
        do throws(BeaconRegion.SpecError) { _ = try BeaconRegion.parse(specs) } catch {
            throw ValidationError(error.description)
        }
    }

    var regions: [BeaconRegion] { (try? BeaconRegion.parse(specs)) ?? [] }
}
