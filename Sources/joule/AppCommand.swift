import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JouleWire
import JouleHardware
import JouleEnergy
import JouleApps
import JouleClient

/// `joule app`: move, list and watch the apps `joule run` supervises.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Move supervised apps between foreground and background, list them, watch their lifecycle events.",
        discussion: """
            Apps are the programs started with `joule run`. A move to the background takes effect only \
            when it is still asked for 1 s later. Exit status: 0 on success, 1 for an unknown app or a \
            refusal, 2 for bad arguments.
            """,
        subcommands: [
            AppTransition<Foreground>.self, AppTransition<Inactive>.self, AppTransition<Background>.self,
            AppTransition<Suspend>.self, AppTransition<Terminate>.self, AppList.self, AppEvents.self,
        ])

    static func client() throws -> AppControlClient {
        // Paused apps of a joule run that was killed are continued first.
        guard let runtime = RuntimeDirectory.current() else {
            throw JouleExit.system("app: " + RuntimeDirectory.missingMessage)
        }
        let client = AppControlClient(runtime: runtime)
        for line in AppPauseLedger.recoverLeftovers(in: client.directory, controller: PidfdProcessController()) {
            Console.error("joule app: " + line)
        }
        return client
    }
}

/// The request each transition subcommand makes.
protocol AppTransitionKind {
    static var request: AppLifecycleRequest { get }
    static var abstract: String { get }
}
enum Foreground: AppTransitionKind {
    static let request = AppLifecycleRequest.foreground
    static let abstract = "Bring an app to the foreground: thaw it, then willEnterForeground and didBecomeActive."
}
enum Inactive: AppTransitionKind {
    static let request = AppLifecycleRequest.inactive
    static let abstract = "Make an active app inactive (willResignActive)."
}
enum Background: AppTransitionKind {
    static let request = AppLifecycleRequest.background
    static let abstract = "Send an app to the background: didEnterBackground, then the grace period, then suspension."
}
enum Suspend: AppTransitionKind {
    static let request = AppLifecycleRequest.suspend
    static let abstract = "Send an app to the background and suspend it now."
}
enum Terminate: AppTransitionKind {
    static let request = AppLifecycleRequest.terminate
    static let abstract = "End an app: thaw, SIGTERM, and SIGKILL 5 s later."
}

struct AppTransition<Kind: AppTransitionKind>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Kind.request.rawValue, abstract: Kind.abstract)
    }

    @Argument(help: "The app's name (as `joule app list` shows it).")
    var name: String

    func run() async throws {
        let local = try AppCommand.client()
        let command = "app \(Kind.request.rawValue)"
        // An app registered with joule daemon has no control socket of its own.
        if !local.names().contains(name), let daemon = await AppsClient.find(environment: CurrentProcess.environment()) {
            do throws(BusError) {
                try await daemon.move(Kind.request, app: name)
                await daemon.close()
                return
            } catch {
                // One list of what runs, this user's and the daemon's, as a sentence of its own.
                let running = error.remoteName == AppsBus.unknownAppError
                    ? local.names() + ((try? await daemon.list()) ?? []).compactMap { $0["app"]?.stringValue } : nil
                await daemon.close()
                if let running {
                    throw JouleExit.input("\(command): \(AppSupervisorError.unknownApp(name, known: running.sorted()))")
                }
                if case .remote(_, _, _, let message) = error { throw JouleExit.system("\(command): \(message)") }
                throw JouleExit.system("\(command): joule daemon: \(error)")
            }
        }
        do {
            try local.transition(Kind.request, app: name)
        } catch {
            if case .supervisor(.unknownApp) = error {
                throw JouleExit.input("\(command): \(error)")
            }
            throw JouleExit.system("\(command): \(error)")
        }
    }
}

struct AppList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the supervised apps.")

    @Flag(help: "One JSON object per app: app, pid, state, cgroup, openTasks, backgroundSince, cpuPercent, suspendedCount, killed.")
    var json = false

    func run() async throws {
        var entries = try AppCommand.client().list()
        if let daemon = await AppsClient.find(environment: CurrentProcess.environment()) {
            do {
                entries += try await daemon.list()
            } catch {
                Console.error("joule app list: joule daemon: \(error)")
            }
            await daemon.close()
        }
        if json {
            for entry in entries { Console.out(entry.serialized) }
            return
        }
        if entries.isEmpty {
            Console.out("no supervised apps")
            return
        }
        Console.out("APP                  PID      STATE       TASKS  CPU%   SUSPENDED  CGROUP")
        for entry in entries {
            let cpu = entry["cpuPercent"]?.doubleValue.map { String(format: "%.1f", $0) } ?? "-"
            let row = [
                (entry["app"]?.stringValue ?? "?").padding(toLength: 20, withPad: " ", startingAt: 0),
                (entry["pid"]?.intValue.map(String.init) ?? "-").padding(toLength: 8, withPad: " ", startingAt: 0),
                (entry["state"]?.stringValue ?? "?").padding(toLength: 11, withPad: " ", startingAt: 0),
                String(entry["openTasks"]?.intValue ?? 0).padding(toLength: 6, withPad: " ", startingAt: 0),
                cpu.padding(toLength: 6, withPad: " ", startingAt: 0),
                String(entry["suspendedCount"]?.intValue ?? 0).padding(toLength: 10, withPad: " ", startingAt: 0),
                entry["cgroup"]?.stringValue ?? "(process tree)",
            ]
            Console.out(row.joined(separator: " "))
        }
    }
}

struct AppEvents: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "Print every lifecycle transition of the supervised apps as it happens.")

    @Flag(help: "JSON lines: timestamp, app, pid, event, state, detail.")
    var json = false

    func run() async throws {
        let local = try AppCommand.client()
        for await line in await AppsClient.events(local: local, environment: CurrentProcess.environment()) {
            if json {
                Console.out(line.serialized)
                continue
            }
            let time = line["timestamp"]?.doubleValue.map(ClockTime.text) ?? "?"
            var text = "\(time) \(line["app"]?.stringValue ?? "?")[\(line["pid"]?.intValue.map(String.init) ?? "?")] "
            text += "\(line["event"]?.stringValue ?? "?") → \(line["state"]?.stringValue ?? "?")"
            if let detail = line["detail"]?.stringValue { text += " (\(detail))" }
            Console.out(text)
        }
    }
}
