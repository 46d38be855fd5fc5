import ArgumentParser
import JouleHardware
import JouleWorkloads

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
    @Option(parsing: .unconditional, help: "Replay a btsnoop capture (datalink 1001, 1002 or 2001) instead of scanning; capture time is the clock.")
    var replay: String?

    @Flag(help: "With --replay, pace the replay at the capture's real speed.")
    var realtime = false

    @Option(parsing: .unconditional, help: "Adapter to scan with, e.g. hci0 (default: the first LE adapter that is up).")
    var adapter: String?

    @Option(parsing: .unconditional, help: "How to reach the radio: auto (bluez when bluetoothd has the adapter, else hci), hci (raw HCI socket) or bluez (bluetoothd's D-Bus API).")
    var transport: BeaconTransportKind = .auto

    @Flag(help: "Active scanning (request scan responses); passive by default.")
    var active = false

    @Flag(help: "Use the LE extended scan commands (also chosen automatically when the controller refuses legacy ones).")
    var extended = false

    @Option(parsing: .unconditional, help: "Scan duty cycle WINDOW_MS/INTERVAL_MS (2.5 to 10240 ms), e.g. 30/300.")
    var duty: Spec<ScanDuty>?

    @Flag(help: "Scan as asked even in Low Power Mode or a serious or critical thermal state (live scans only).")
    var ignoreEnergyState = false

    func validate() throws {
        if realtime && replay == nil { throw ValidationError("--realtime only applies with --replay FILE") }
        if replay != nil && transport != .auto { throw ValidationError("--transport applies to live scans, not --replay") }
        if replay != nil && adapter != nil { throw ValidationError("--adapter applies to live scans, not --replay") }
        if let adapter, !(adapter.hasPrefix("hci") && adapter.count > 3 && adapter.dropFirst(3).allSatisfy(\.isASCII)
            && adapter.dropFirst(3).allSatisfy(\.isNumber) && adapter.count <= 8) {
            throw ValidationError("--adapter must name an adapter like hci0, not '\(adapter)'")
        }
        try duty?.check()
    }

    var scanDuty: ScanDuty? { duty?.value }

    /// The transport: a replay of the file (nil beside it), or the live link `--transport`
    /// chose, with what to say about it.
    func openTransport() async throws(HCITransportError) -> (any HCITransport, OpenedBeaconTransport?) {
        if let replay { return (try ReplayHCITransport(path: replay), nil) }
        let opened = try await BeaconTransportChooser.open(transport, adapter: adapter)
        return (opened.transport, opened)
    }
}

extension BeaconTransportKind: ExpressibleByArgument {}

/// Region specs shared by range and monitor.
struct RegionOptions: ParsableArguments {
    @Option(
        name: .customLong("region"), parsing: .upToNextOption,
        help: "Regions as NAME=UUID[:MAJOR[:MINOR]] or a bare UUID (repeatable).")
    var specs: [Spec<BeaconRegion>] = []

    func validate() throws {
        guard !specs.isEmpty else { throw ValidationError("at least one --region NAME=UUID[:MAJOR[:MINOR]] is required") }
        do throws(BeaconRegion.SpecError) { _ = try distinct() } catch {
            throw ValidationError(error.description)
        }
    }

    var regions: [BeaconRegion] { (try? distinct()) ?? [] }

    private func distinct() throws(BeaconRegion.SpecError) -> [BeaconRegion] {
        try BeaconRegion.distinct(specs.map { ($0.text, $0.parsed) })
    }
}
