import ArgumentParser
import JouleHardware
import JouleTransferQueue
import JouleClient

/// `joule transfer wait ID [--timeout S]`: blocks until the transfer is final. Exit status 0
/// completed, 1 failed or cancelled (or the daemon left), 3 still pending at the timeout.
struct TransferWait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until a transfer finishes: exit 0 completed, 1 failed or cancelled, 3 still pending at --timeout.")

    @OptionGroup var transfer: TransferCommand.Target

    @Option(parsing: .unconditional, help: ArgumentHelp("Give up after S seconds (default: wait as long as it takes).", valueName: "S"))
    var timeout: Double?

    func validate() throws {
        if let timeout, !(timeout.isFinite && timeout >= 0) { throw ValidationError("--timeout must be zero or more seconds") }
    }

    func run() async throws {
        let timeout = self.timeout
        let (ending, seen) = try await TransferCommand.withTransfer("wait", transfer.id) { client, id throws(TransfersError) in
            try await client.wait(for: id, timeout: timeout)
        }
        switch ending {
        case .final("completed"):
            Console.out("completed")
        case .final(let state):
            Console.out(seen.error.map { "\(state): \($0)" } ?? state)
            throw JouleExit.systemFailure
        case .timedOut:
            Console.out("\(seen.state.name) (still pending after \(Self.seconds(timeout ?? 0)) s)")
            throw ExitCode(3)
        case .daemonLeft:
            throw JouleExit.system("joule daemon left the bus before \(seen.id) finished", command: "transfer wait")
        }
    }

    /// `30`, or `2.5`: seconds as the user wrote them.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
