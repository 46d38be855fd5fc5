import ArgumentParser
import JouleHardware
import JouleLocation

/// `joule location record FILE`: a live gpsd stream written as `gpspipe -w` writes it, for
/// `--replay`.
struct LocationRecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record live gpsd reports to FILE as `gpspipe -w` writes them (NDJSON), for --replay.",
        discussion: """
            Writes every report gpsd sends while the receiver is on (TPV, SKY, DEVICE, …), as sent, a line \
            each, until SIGINT/SIGTERM, --duration or --count fixes. Prints the receiver's on and off events, \
            {"event":"error",…} when gpsd goes away (recording goes on once it is back), and a summary. \
            Needs a live source: --source gpsd or auto (gpsd answering).
            """)

    @OptionGroup var options: LocationOptions

    @Argument(help: ArgumentHelp("The NDJSON file to write (created or truncated).", valueName: "file"))
    var file: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many seconds.", valueName: "s"))
    var duration: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stop after this many fixes (TPVs with mode 2 or 3).", valueName: "n"))
    var count: Int?

    func validate() throws {
        if let duration, !(duration.isFinite && duration > 0 && duration <= 31_536_000) {
            throw ValidationError("--duration must be above 0 and at most 31536000 seconds, not \(duration)")
        }
        if let count, count < 1 { throw ValidationError("--count must be 1 or more, not \(count)") }
        switch options.spec {
        case .replay, .fixed: throw ValidationError("record needs a live source (--source gpsd or auto), not --source \(options.spec)")
        default: break
        }
    }

    func run() async throws {
        // The source answers before FILE is created or truncated: a refused run leaves it as it was.
        try UserPath.outputFile(file, option: "FILE", command: "location record")
        let source = try await options.open()
        guard case .gpsd(var receiver) = source else {
            throw JouleExit.system("--source \(options.spec): record needs gpsd (\(source.name) cannot be recorded)", command: "location record")
        }
        let writer: LineFileWriter
        do throws(HardwareError) { writer = try LineFileWriter(path: file) } catch {
            receiver.stop()
            throw JouleExit.input("\(error)", command: "location record")
        }
        let printer = LocationOptions.Printer(json: options.json, live: true)
        defer { printer.output.flush() }
        let stop = receiver.connection
        let signals = SignalTrap { _ in stop.stop() }
        defer { signals.cancel() }
        let request = RecordRequest(durationMicros: duration.map(LocationOptions.micros), count: count)
        do throws(HardwareError) {
            try await LocationRecorder.run(request, receiver: &receiver, write: writer.write(line:), emit: printer.emit)
        } catch {
            writer.close()
            receiver.stop()
            throw JouleExit.system("\(error)", command: "location record")
        }
        writer.close()
        receiver.stop()
        Console.error("joule location record: \(writer.lineCount) lines written to \(file)")
    }
}
