import ArgumentParser
import JouleHardware
import JoulePolicy

/// `joule transfer list [--json]`: the caller's transfers (root: everybody's), oldest first.
struct TransferList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your transfers, oldest first (progress bars in a terminal).")

    @Flag(help: "Print the JSON array as the daemon returns it.")
    var json = false

    func run() async throws {
        let client = try await TransferCommand.client("list")
        do throws(TransfersError) {
            let listing = try await client.list()
            await client.close()
            if json {
                Console.out(listing.json.trimmingWhitespace)
            } else {
                for line in TransferTable.render(listing.transfers, terminal: Console.isTerminal(.standardOutput)) { Console.out(line) }
            }
        } catch {
            await client.close()
            throw TransferCommand.fail("list", error)
        }
    }
}
