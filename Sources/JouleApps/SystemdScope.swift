import JouleHardware

/// A transient systemd scope for an app, as `systemd-run --scope` makes one: the service
/// manager of this user (the user manager on the session bus; the system manager for root)
/// moves the waiting child into `joule-app-NAME-PID.scope` with `Delegate=yes`, so the
/// scope's cgroup, freezer included, is this user's to write. Used where joule's own cgroup is
/// not delegated, as a desktop session's is not.
package enum SystemdScope {
    static let manager = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"

    /// Whether systemd runs this machine (sd_booted's test).
    package static var isBooted: Bool { FileSystem.kind(of: "/run/systemd/system") == .directory }

    /// The unit name for app `name` started as `pid`.
    package static func unitName(app name: String, pid: Int32) -> String { "joule-app-\(name)-\(pid).scope" }

    /// Starts the scope holding `pid` and waits (at most `timeout`) for its job to finish;
    /// returns the job's result (`done` on success).
    package static func start(
        unit: String, pid: Int32, description: String, on bus: BusConnection, timeout: Duration = .seconds(10)
    ) async throws(BusError) -> String {
        // Listen before asking, so the job cannot finish unseen.
        let removals = try await bus.signals(
            matching: "type='signal',sender='\(manager)',path='\(managerPath)',interface='\(managerInterface)',member='JobRemoved'")
        let properties: [BusValue] = [
            .structure([.string("PIDs"), .variant(.array(elementSignature: "u", [.uint32(UInt32(bitPattern: pid))]))]),
            .structure([.string("Delegate"), .variant(.bool(true))]),
            .structure([.string("Description"), .variant(.string(description))]),
            .structure([.string("CollectMode"), .variant(.string("inactive-or-failed"))]),
        ]
        let reply = try await bus.call(
            destination: manager, path: managerPath, interface: managerInterface, member: "StartTransientUnit",
            arguments: [.string(unit), .string("fail"), .array(elementSignature: "(sv)", properties),
                        .array(elementSignature: "(sa(sv))", [])],
            timeout: timeout)
        guard let job = reply.first?.stringValue else {
            throw .unexpected(operation: "StartTransientUnit \(unit)", detail: "no job in the reply \(reply)")
        }
        let result: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                for await signal in removals where signal.arguments.count == 4 && signal.arguments[1].stringValue == job {
                    return signal.arguments[3].stringValue ?? "?"
                }
                return nil
            }
            group.addTask {
                try? await CancellableSleep.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let result else {
            throw .unexpected(operation: "StartTransientUnit \(unit)", detail: "job \(job) did not finish within \(timeout)")
        }
        return result
    }
}
