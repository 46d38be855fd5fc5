import ArgumentParser
import JouleHardware
import JouleLocation

/// `joule location visits`: places the device stayed at.
struct LocationVisitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visits",
        abstract: "Report arriving at and leaving places where the device stays, sampling sparsely during a visit.",
        discussion: """
            The anchor is the first fix; one farther than --radius from it becomes the new anchor. The first fix \
            --min-dwell seconds after the anchor prints {"event":"visitArrival","visit":{"latitude","longitude","radiusM",\
            "arrival","departure":null}} (the centre is the mean of the fixes since the anchor, the arrival the anchor's \
            time). The first fix beyond the radius plus max(20 m, its accuracy) from the centre prints \
            {"event":"visitDeparture","visit":{…,"departure":T}}, T being the last fix within the radius. Fixes less \
            accurate than --accuracy take no part. During a visit the receiver samples as monitor does, with the visit's \
            circle as the region. In Low Power Mode or at thermal state serious or worse the accuracy is at least 1 km \
            and {"event":"policy",…} is printed first.
            """)

    @OptionGroup var options: LocationOptions
    @OptionGroup var policy: LocationPolicyOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("How far fixes may lie from the anchor and still be one place, metres.", valueName: "m"))
    var radius: Double = 100

    @Option(parsing: .unconditional, help: ArgumentHelp("How long the device must stay for a visit, seconds.", valueName: "s"))
    var minDwell: Double = 300

    func validate() throws {
        guard radius.isFinite, radius > 0, radius <= CircularRegion.maximumRadiusM else {
            throw ValidationError("--radius must be a number of metres above 0, not \(radius)")
        }
        guard minDwell.isFinite, minDwell > 0, minDwell <= 86_400 * 7 else {
            throw ValidationError("--min-dwell must be above 0 and at most 604800 seconds, not \(minDwell)")
        }
    }

    func run() async throws {
        var (receiver, printer, signals) = try await options.start()
        defer { signals?.cancel() }
        let policy = try await self.policy.read()
        defer { printer.output.flush() }
        let request = VisitsRequest(
            radiusM: radius, minDwellMicros: LocationOptions.micros(minDwell), sampling: SamplingRequest(accuracyM: options.accuracy))
        let delivered = await LocationVisits.run(request, policy: policy, receiver: &receiver, emit: printer.emit) != nil
        await receiver.close()
        guard delivered else {
            throw JouleExit.system("\(receiver.failure ?? LocationError.noFix(source: receiver.name))", command: "location visits")
        }
    }
}
