import JouleWire
import JouleHardware
import JouleApps

/// The foreground follows the user (issue 35): each desktop snapshot (X11 EWMH or sway/i3
/// IPC, event-driven) becomes iOS's states per window pid (`DesktopAppStates`), each pid is
/// traced to the supervised app it belongs to (`ForegroundAssignment` over `Apps1.List`), and
/// only an app whose state changed is moved (`Apps1.Foreground`, `Inactive`, `Background`).
/// An app none of whose windows is left after it had some goes to the background. A locked or
/// idle session is the daemon's to apply (it follows logind). No timers: it sleeps until the
/// desktop changes.
package actor ForegroundFollower {
    private let bus: BusConnection
    private let procfs: ProcFS
    private let log: @Sendable (String) -> Void
    /// The state last asked for each app.
    private var sent: [String: AppLifecycleState] = [:]
    /// The last failure logged, so a daemon that is down is said once, not at every focus change.
    private var problem: String?

    package init(bus: BusConnection, procRoot: String = "/", log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        procfs = ProcFS(root: procRoot)
        self.log = log
    }

    /// Moves apps for each snapshot until the source ends or the task is cancelled. A source
    /// that fails (the X server or compositor gone) is logged, and the apps are handed back
    /// (`release`): nothing would ever thaw what it left in the background.
    package func follow(_ source: any DesktopFocusSource) async {
        log("session: following the focus on \(source.origin)")
        do {
            for try await snapshot in source.snapshots {
                await apply(snapshot)
            }
        } catch {
            log("session: the focus source ended: \(error); the foreground is left to joule app")
            await release()
        }
    }

    /// Hands the apps back as they were before the focus was followed: each app last moved
    /// out of the foreground is brought back there (thawed, if it was suspended). For when
    /// nothing will move them again: the focus source ended, or the agent stops. Returns the
    /// moves; an app whose move failed is tried again at the next call.
    @discardableResult
    package func release() async -> [(String, AppLifecycleRequest)] {
        var moves: [(String, AppLifecycleRequest)] = []
        for (name, state) in sent.sorted(by: { $0.key < $1.key }) {
            guard state != .active else {
                sent[name] = nil
                continue
            }
            do throws(BusError) {
                _ = try await call(AppLifecycleRequest.foreground.busMember, [.string(name)])
                sent[name] = nil
                moves.append((name, .foreground))
            } catch {
                say("cannot bring \(name) back to the foreground: \(error)")
            }
        }
        if !moves.isEmpty {
            log("session: no focus to follow: \(moves.map(\.0).joined(separator: ", ")) back in the foreground")
        }
        return moves
    }

    /// The moves for one snapshot; returns them (app, request) for tests and logs.
    @discardableResult
    package func apply(_ snapshot: DesktopSnapshot) async -> [(String, AppLifecycleRequest)] {
        let apps: [ForegroundAssignment.App]
        do throws(BusError) {
            let reply = try await call("List")
            guard let text = reply.first?.stringValue, let entries = (try? JSONParser.parse(text))?.arrayValue else {
                throw .unexpected(operation: "List", detail: "not a JSON array")
            }
            apps = entries.compactMap(ForegroundAssignment.App.init(json:))
        } catch {
            say("cannot list the apps on \(AppsBus.busName): \(error)")
            return []
        }
        let windows = DesktopAppStates.states(of: snapshot, sessionLockedOrIdle: false)
        var wanted = ForegroundAssignment.states(
            windows: windows, apps: apps, cgroup: { procfs.cgroup($0) }, parent: { pid in (try? procfs.stat(pid))??.ppid })
        let present = Set(apps.map(\.name))
        for name in sent.keys where !present.contains(name) { sent[name] = nil }
        for (name, state) in sent where wanted[name] == nil && state != .background { wanted[name] = .background }
        var moves: [(String, AppLifecycleRequest)] = []
        for (name, state) in wanted.sorted(by: { $0.key < $1.key }) where sent[name] != state {
            guard let request = ForegroundAssignment.request(for: state) else { continue }
            do throws(BusError) {
                _ = try await call(request.busMember, [.string(name)])
                sent[name] = state
                moves.append((name, request))
                problem = nil
            } catch {
                say("cannot move \(name) to \(request.rawValue): \(error)")
            }
        }
        return moves
    }

    private func call(_ member: String, _ arguments: [BusValue] = []) async throws(BusError) -> [BusValue] {
        try await bus.call(destination: AppsBus.busName, path: AppsBus.objectPath, interface: AppsBus.interfaceName, member: member, arguments: arguments)
    }

    private func say(_ text: String) {
        if text != problem { log("session: \(text)") }
        problem = text
    }
}
