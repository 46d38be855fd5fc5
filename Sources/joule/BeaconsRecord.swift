import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule beacons record --out FILE [--duration S]`: a live scan written as btsnoop (H4,
/// datalink 1002). With --replay it converts a capture of any supported datalink to 1002.
struct BeaconsRecord: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a scan to a btsnoop file (datalink 1002, as Android writes) for later --replay.")

    @OptionGroup var source: BeaconSourceOptions

    @Option(help: "The btsnoop file to write.")
    var out: String

    @Option(help: "Stop after this many seconds (default: until SIGINT/SIGTERM).")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    func run() async throws {
        let writer: BTSnoopWriter
        do throws(HardwareError) { writer = try BTSnoopWriter(path: out) } catch {
            Console.error("joule beacons record: \(error)")
            throw ExitCode(1)
        }
        if let replay = source.replay {
            try convert(replay, writer)
        } else {
            try await recordLive(writer)
        }
        do throws(HardwareError) { try writer.close() } catch {
            Console.error("joule beacons record: \(error)")
            throw ExitCode(1)
        }
        Console.error("joule beacons record: \(writer.recordCount) records written to \(out)")
    }

    private func convert(_ path: String, _ writer: BTSnoopWriter) throws {
        let reader: BTSnoopReader
        do throws(BTSnoopError) { reader = try BTSnoopReader(path: path) } catch {
            Console.error("joule beacons record: \(error)")
            throw ExitCode(1)
        }
        var start: Int64?
        do throws(HardwareError) {
            while let record = reader.next() {
                guard record.type != .other, let time = record.timestampMicros else { continue }
                if BeaconTime.isPlausible(time) {
                    start = start ?? time
                    if let duration, let start, time - start > BeaconTime.micros(seconds: duration) { break }
                }
                try writer.write(type: record.type, received: record.received, payload: record.payload, timestampMicros: time)
            }
        } catch {
            Console.error("joule beacons record: \(error)")
            throw ExitCode(1)
        }
        if let warning = reader.warning { Console.error("warning: \(warning)") }
    }

    private func recordLive(_ writer: BTSnoopWriter) async throws {
        let live: LiveHCITransport
        do throws(HCITransportError) { live = try LiveHCITransport(adapter: source.adapter) } catch {
            Console.error("joule beacons: \(error)")
            throw ExitCode(1)
        }
        let signals = SignalTrap { _ in live.stopEvents() }
        var commander = ScanCommander(transport: live, active: source.active, useExtended: source.extended)
        let start = Syscalls.realtimeMicros()
        var failure: (any Error)?
        do {
            try await commander.apply(.scanning(source.scanDuty ?? .ranging))
            while let record = try await live.nextEvent() {
                guard let time = record.timestampMicros else { continue }
                if let duration, time - start >= BeaconTime.micros(seconds: duration) { break }
                if !record.bytes.isEmpty {
                    try writer.write(type: .event, received: true, payload: record.bytes, timestampMicros: time)
                }
            }
        } catch {
            failure = error
        }
        try? await commander.apply(.off)
        signals.cancel()
        await live.close()
        if let failure {
            Console.error("joule beacons record: \(failure)")
            throw ExitCode(1)
        }
    }
}
