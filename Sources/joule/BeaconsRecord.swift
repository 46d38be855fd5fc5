import ArgumentParser
import JouleHardware
import JouleWorkloads

/// `joule beacons record --out FILE [--duration S]`: a live scan written as btsnoop (H4,
/// datalink 1002). With --replay it converts a capture of any supported datalink to 1002.
struct BeaconsRecord: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a scan to a btsnoop file (datalink 1002, as Android writes) for later --replay.")

    @OptionGroup var source: BeaconSourceOptions

    @Option(parsing: .unconditional, help: "The btsnoop file to write.")
    var out: String

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: until SIGINT/SIGTERM).")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    func run() async throws {
        // Everything the user named is checked, and the radio opened, before --out is created
        // or truncated: a refused run leaves the file as it was.
        try UserPath.outputFile(out, option: "--out", command: "beacons record")
        var opened: OpenedBeaconTransport?
        if let replay = source.replay {
            do throws(BTSnoopError) { _ = try BTSnoopReader(path: replay) } catch {
                throw JouleExit.input("\(error)", command: "beacons record")
            }
        } else {
            do throws(HCITransportError) { opened = try await BeaconTransportChooser.open(source.transport, adapter: source.adapter) } catch {
                throw JouleExit.system("\(error)", command: "beacons record")
            }
        }
        let writer: BTSnoopWriter
        do throws(HardwareError) { writer = try BTSnoopWriter(path: out) } catch {
            await opened?.transport.close()
            throw JouleExit.input("\(error)", command: "beacons record")
        }
        let recorder = BeaconRecorder(writer: writer, duration: duration.map { .seconds(clamping: $0) })
        if let replay = source.replay {
            do throws(BeaconRecorder.Failure) {
                if let warning = try recorder.convert(capture: replay) { Console.error("warning: \(warning)") }
            } catch {
                throw JouleExit.system("\(error)", command: "beacons record")
            }
        } else if let opened {
            Console.error("joule beacons: \(opened.description)")
            if let warning = opened.warning { Console.error("warning: \(warning)") }
            let live = opened.transport
            let signals = SignalTrap { _ in live.stopEvents() }
            var failure: BeaconRecorder.Failure?
            do throws(BeaconRecorder.Failure) {
                try await recorder.record(
                    commander: ScanCommander(transport: live, active: source.active, useExtended: source.extended),
                    duty: source.scanDuty ?? .ranging, start: WallClock.micros())
            } catch {
                failure = error
            }
            signals.cancel()
            await live.close()
            if let failure { throw JouleExit.system("\(failure)", command: "beacons record") }
        }
        do throws(HardwareError) { try writer.close() } catch {
            throw JouleExit.system("\(error)", command: "beacons record")
        }
        Console.error("joule beacons record: \(writer.recordCount) records written to \(out)")
    }
}
