import ArgumentParser
import JouleHardware
import JouleTransferQueue
import JouleClient

/// `joule transfer show ID [--json]`: one transfer, a field a line.
struct TransferShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one transfer: one 'key: value' a line, or its JSON object.")

    @OptionGroup var transfer: TransferCommand.Target

    @Flag(help: "Print the object as the daemon returns it.")
    var json = false

    func run() async throws {
        let reply = try await TransferCommand.withTransfer("show", transfer.id) { client, id throws(TransfersError) in
            try await client.get(id)
        }
        if json {
            Console.out(reply.json.trimmingWhitespace)
        } else {
            for line in TransferTable.details(reply.transfer, clock: ClockTime.dateTime) { Console.out(line) }
        }
    }
}
