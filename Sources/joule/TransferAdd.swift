import ArgumentParser
import JouleHardware
import JouleTransferQueue
import JouleClient

/// `joule transfer add URL [--to PATH | --upload FILE [--method PUT|POST]] …`: queues one
/// transfer and prints its id (or, with --json, its object).
struct TransferAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Queue a download (or with --upload, an upload) for joule daemon.",
        discussion: """
            Without --to a download is saved in the current directory under the URL's last \
            path segment, as curl -O does. Relative paths are taken against the current \
            directory. Prints the new transfer's id, or with --json its object.
            """)

    @Argument(help: "The http or https URL.")
    var url: String

    @Option(name: .customLong("to"), parsing: .unconditional, help: ArgumentHelp("Where to save the download.", valueName: "path"))
    var destination: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Upload this file instead of downloading.", valueName: "file"))
    var upload: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The upload's method: PUT (default) or POST.", valueName: "PUT|POST"))
    var method: String?

    @Flag(help: "Wait for the best time: on AC, unmetered, not in Low Power Mode, thermal at most fair, battery not low.")
    var discretionary = false

    @Flag(name: .customLong("unmetered-only"), help: "Only over an unmetered network.")
    var unmeteredOnly = false

    @Flag(name: .customLong("require-ac"), help: "Only on AC power.")
    var requireAC = false

    @Option(parsing: .unconditional, help: ArgumentHelp("high, normal (default) or low: the order in which ready transfers start.", valueName: "level"))
    var priority: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Start together with the other transfers of this batch, once all are ready.", valueName: "name"))
    var batch: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Fail if not finished within S seconds (default: the daemon's, 7 days).", valueName: "S"))
    var timeout: Double?

    @Option(name: .customLong("begin-after"), parsing: .unconditional, help: ArgumentHelp("Do not begin for S seconds.", valueName: "S"))
    var beginAfter: Double?

    @Option(name: .customLong("sha256"), parsing: .unconditional, help: ArgumentHelp("The body's expected SHA-256 (64 hex digits).", valueName: "hex"))
    var sha256: String?

    @Option(name: .customLong("header"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A request header; repeatable.", valueName: "'K: V'"))
    var headers: [String] = []

    @Option(name: .customLong("on-complete"), parsing: .unconditional, help: ArgumentHelp(
        "Run with /bin/sh -c as you when it finishes (JOULE_TRANSFER_ID, _STATE, _PATH, _URL set).", valueName: "cmd"))
    var onComplete: String?

    @Flag(help: "Print the transfer object instead of its id.")
    var json = false

    var options: TransferAddOptions {
        TransferAddOptions(
            TransferRequest(
                url: url, destination: destination, upload: upload, discretionary: discretionary,
                unmeteredOnly: unmeteredOnly, requireAC: requireAC, batch: batch, timeout: timeout, beginAfter: beginAfter,
                sha256: sha256, onComplete: onComplete),
            method: method, priority: priority, headers: headers)
    }

    func validate() throws {
        // Every value is checked here, as the daemon would check it, so a bad one exits 2
        // before the bus is touched. Usage problems do not depend on the directory; run()
        // takes the real one.
        do throws(TransferRequest.Invalid) { _ = try options.validatedRequest(workingDirectory: "/") } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        guard let directory = CurrentProcess.workingDirectory else {
            throw JouleExit.system("the current directory no longer exists", command: "transfer add")
        }
        let request: TransferRequest
        do throws(TransferRequest.Invalid) { request = try options.validatedRequest(workingDirectory: directory) } catch {
            throw JouleExit.input(error.message, command: "transfer add")
        }
        // The paths as this user sees them, before the daemon is asked (it checks again, as
        // this user, when it opens them).
        if let destination = request.destination {
            try UserPath.outputFile(destination, option: "--to", command: "transfer add")
        }
        if let upload = request.upload { try UserPath.inputFile(upload, option: "--upload", command: "transfer add") }
        let printed = try await TransferCommand.withClient("add") { client throws(TransfersError) in
            let id = try await client.add(request)
            return json ? try await client.get(id).json.trimmingWhitespace : id
        }
        Console.out(printed)
    }
}
