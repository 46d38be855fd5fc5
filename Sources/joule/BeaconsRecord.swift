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

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: until SIGINT/SIGTERM).")
    var duration: Double?

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    func run() async throws {
        let writer: BTSnoopWriter
        do throws(HardwareError) { writer = try BTSnoopWriter(path: out) } catch {
            throw JouleExit.input("\(error)", command: "beacons record")
        }
        let recorder = BeaconRecorder(writer: writer, duration: duration.map { .seconds(clamping: $0) })
        if let replay = source.replay {
            do throws(BeaconRecorder.Failure) {
                if let warning = try recorder.convert(capture: replay) { Console.error("warning: \(warning)") }
            } catch {
                Console.error("joule beacons record: \(error)")
                throw ExitCode(1)
            }
        } else {
            let opened: OpenedBeaconTransport
            do throws(HCITransportError) { opened = try await BeaconTransportChooser.open(source.transport, adapter: source.adapter) } catch {
                Console.error("joule beacons: \(error)")
                throw ExitCode(1)
            }
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
            if let failure {
                Console.error("joule beacons record: \(failure)")
                throw ExitCode(1)
            }
        }
        do throws(HardwareError) { try writer.close() } catch {
            Console.error("joule beacons record: \(error)")
            throw ExitCode(1)
        }
        Console.error("joule beacons record: \(writer.recordCount) records written to \(out)")
    }
}
