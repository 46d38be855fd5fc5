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

    /// How the wait ended.
    enum Ending: Sendable {
        case final(String)
        case timedOut
        case daemonLeft
    }

    func run() async throws {
        let timeout = self.timeout
        let (ending, seen) = try await TransferCommand.withTransfer("wait", transfer.id) { client, id throws(TransfersError) in
            // Subscribed before the first Get, so a change in between is not missed.
            let events = try await client.events()
            let first = try await client.get(id).transfer
            guard first.state.isLive else { return (Ending.final(first.state.name), first) }
            let ending = await Self.race(events, id: id, timeout: timeout)
            // The object now says why it failed, or where it stands; a daemon that left cannot say.
            if case .daemonLeft = ending { return (ending, first) }
            let last = (try? await client.get(id).transfer) ?? first
            // It may have finished as the time ran out.
            if case .timedOut = ending, last.state.isFinished { return (Ending.final(last.state.name), last) }
            return (ending, last)
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

    /// The first final state of `id` among `events`, or the timeout, or the stream's end.
    static func race(_ events: AsyncStream<TransferEvent>, id: String, timeout: Double?) async -> Ending {
        await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                for await event in events where event.id == id && event.isFinal { return .final(event.state) }
                return .daemonLeft
            }
            if let timeout {
                group.addTask {
                    try? await Task.sleep(for: .seconds(min(timeout, 1e9)))
                    return .timedOut
                }
            }
            let ending = await group.next() ?? .daemonLeft
            group.cancelAll()
            return ending
        }
    }

    /// `30`, or `2.5`: seconds as the user wrote them.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
