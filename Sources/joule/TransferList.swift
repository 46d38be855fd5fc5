import ArgumentParser
import JouleHardware
import JouleTransferQueue
import JouleClient

/// `joule transfer list [--json]`: the caller's transfers (root: everybody's), oldest first.
struct TransferList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your transfers, oldest first (progress bars in a terminal).")

    @Flag(help: "Print the JSON array as the daemon returns it.")
    var json = false

    func run() async throws {
        let listing = try await TransferCommand.withClient("list") { client throws(TransfersError) in try await client.list() }
        if json {
            Console.out(listing.json.trimmingWhitespace)
        } else {
            for line in TransferTable.render(listing.transfers, terminal: Console.isTerminal(.standardOutput)) { Console.out(line) }
        }
    }
}
