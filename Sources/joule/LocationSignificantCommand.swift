import ArgumentParser
import JouleHardware
import JouleLocation

/// `joule location significant`: the significant-change service.
struct LocationSignificantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "significant",
        abstract: "Report a coarse fix when the device has moved 500 m, at most once every 5 minutes.",
        discussion: """
            Prints the first fix as {"event":"significantChange","fix":…}, then each fix at least 500 m from the last \
            one reported and at least 300 s after it. It asks for 1 km accuracy (--accuracy does not apply), and after a \
            report samples as monitor does with the 500 m circle around it as the region, never waking before a report \
            could be due. In Low Power Mode or at thermal state serious or worse {"event":"policy",…} is printed first.
            """)

    @OptionGroup var options: LocationOptions
    @OptionGroup var policy: LocationPolicyOptions

    func validate() throws {
        guard options.accuracy == 100 else {
            throw ValidationError("--accuracy does not apply to significant: it asks for 1 km, as Core Location's significant-change service does")
        }
    }

    func run() async throws {
        var (receiver, printer, signals) = try await options.start()
        defer { signals?.cancel() }
        let policy = try await self.policy.read()
        defer { printer.output.flush() }
        let delivered = await LocationSignificant.run(SignificantRequest(), policy: policy, receiver: &receiver, emit: printer.emit) != nil
        await receiver.close()
        guard delivered else {
            throw JouleExit.system("\(receiver.failure ?? LocationError.noFix(source: receiver.name))", command: "location significant")
        }
    }
}
