import ArgumentParser
import JouleHardware
import JouleClient

/// `joule transfer`: deferred downloads and uploads that joule daemon carries out when the
/// conditions allow (org.joule.Transfers1).
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Queue, list, show, cancel and wait for deferred downloads and uploads (joule daemon).",
        discussion: """
            joule daemon performs the transfers, so they outlive this command: it waits for the \
            conditions asked for (--discretionary: on AC, unmetered, not in Low Power Mode, \
            thermal at most fair, battery not low), resumes and retries on its own. The daemon is \
            looked for on the session bus first, then the system bus. Exit status: 0 on success, \
            1 when the daemon is not running or refuses, 2 for bad arguments or values or an id \
            that names no transfer.
            """,
        subcommands: [TransferAdd.self, TransferList.self, TransferShow.self, TransferCancel.self, TransferWait.self])

    /// The transfer that show, cancel and wait act on.
    struct Target: ParsableArguments {
        @Argument(help: "The transfer's id, or a unique prefix of it (as list prints it).")
        var id: String
    }

    /// Prints `error` as the daemon (or the bus) worded it, and returns the exit status to
    /// throw: 2 when the daemon found a value of the request wrong (`InvalidArgs`: a missing
    /// directory for `--to`, a file given to `--upload` that is not one) or no transfer has the
    /// id the user typed, else 1.
    static func fail(_ command: String, _ error: TransfersError) -> ExitCode {
        error.isInvalidArgument || error.isNotFound
            ? JouleExit.input("\(error)", command: "transfer \(command)")
            : JouleExit.system("\(error)", command: "transfer \(command)")
    }

    /// `body` with the daemon's transfers; a daemon that is not running, or a refusal, is
    /// printed and turned into its exit status (`fail`).
    static func withClient<T>(
        _ command: String, _ body: (TransfersClient) async throws(TransfersError) -> T
    ) async throws -> T {
        let client: TransfersClient
        do throws(TransfersError) {
            client = try await TransfersClient.connect(environment: CurrentProcess.environment())
        } catch {
            throw fail(command, error)
        }
        do throws(TransfersError) {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw fail(command, error)
        }
    }

    /// `withClient` for the transfer `id` names (whole, or a unique prefix).
    static func withTransfer<T>(
        _ command: String, _ id: String, _ body: (TransfersClient, String) async throws(TransfersError) -> T
    ) async throws -> T {
        try await withClient(command) { client throws(TransfersError) in try await body(client, try await client.resolve(id)) }
    }
}
