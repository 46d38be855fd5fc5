import ArgumentParser
import JouleHardware
import JouleClient

/// `joule transfer cancel ID`: stops a transfer for good.
struct TransferCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a transfer (exit 1 when it is unknown or already finished).")

    @OptionGroup var transfer: TransferCommand.Target

    func run() async throws {
        try await TransferCommand.withTransfer("cancel", transfer.id) { client, id throws(TransfersError) in
            try await client.cancel(id)
        }
    }
}
