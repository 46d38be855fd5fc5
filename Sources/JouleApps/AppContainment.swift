import JouleHardware

/// Where `joule run` puts its app: a cgroup v2 of its own under a subtree this user may
/// write (the delegated subtree: `$JOULE_CGROUP`, else the cgroup joule itself runs in), or,
/// where there is none (cgroup v1, or a subtree not delegated), the process tree, with the
/// reason said once.
package enum AppContainment: Sendable, Hashable {
    /// A cgroup joule made (and removes at the end).
    case cgroup(String)
    /// A transient systemd scope is to be asked for once the child exists (see `SystemdScope`);
    /// `reason` says why joule's own cgroup would not do.
    case systemdScope(reason: String)
    /// The scope systemd made: its cgroup, which systemd removes.
    case scope(unit: String, cgroup: String)
    case processTree(reason: String)

    /// The cgroup the app is in, when it has one of its own.
    package var cgroup: String? {
        switch self {
        case .cgroup(let path), .scope(_, let path): path
        case .systemdScope, .processTree: nil
        }
    }

    /// Picks and prepares the containment for app `name`: creates `BASE/joule-app-NAME`.
    package static func choose(name: String, environment: [String: String], procfs: ProcFS, freezer: CgroupFreezer) -> AppContainment {
        guard FileSystem.kind(of: freezer.mount + "/cgroup.controllers") == .regular else {
            return .processTree(reason: "no cgroup v2 is mounted at \(freezer.mount) (a cgroup v1 or hybrid hierarchy)")
        }
        let base: String
        if let given = environment["JOULE_CGROUP"], !given.isEmpty {
            guard let path = CgroupPath(validating: given) else { return .processTree(reason: "JOULE_CGROUP=\(given) is not a cgroup path") }
            base = path.description
        } else if let own = procfs.cgroup(CurrentProcess.pid) {
            base = own
        } else {
            return .processTree(reason: "joule's own cgroup cannot be read from /proc/self/cgroup")
        }
        guard freezer.isWritable(base) else {
            let reason = "cgroup \(base) is not delegated to this user (its cgroup.procs is not writable)"
            return SystemdScope.isBooted ? .systemdScope(reason: reason) : .processTree(reason: reason)
        }
        let cgroup = CgroupPath(base).appending("joule-app-" + name).description
        do {
            try freezer.create(cgroup)
        } catch {
            return .processTree(reason: "cannot create cgroup \(cgroup): \(error)")
        }
        // Kernels before 5.2 have cgroup v2 without its freezer.
        guard FileSystem.kind(of: freezer.freezeFile(cgroup)) == .regular else {
            try? freezer.remove(cgroup)
            return .processTree(reason: "cgroup \(cgroup) has no cgroup.freeze (a kernel before 5.2)")
        }
        guard freezer.processes(cgroup).isEmpty else {
            return .processTree(reason: "cgroup \(cgroup) already holds processes of another app named \(name)")
        }
        return .cgroup(cgroup)
    }

    /// Moves the waiting child `pid` into a transient scope (`.systemdScope` only); anything
    /// that fails leaves the process tree, with the reason.
    package static func enterScope(
        app name: String, pid: Int32, reason: String, environment: [String: String], procfs: ProcFS, freezer: CgroupFreezer
    ) async -> AppContainment {
        let unit = SystemdScope.unitName(app: name, pid: pid)
        let bus: BusConnection
        do {
            bus = CurrentProcess.isRoot
                ? try await BusConnection.system(environment: environment) : try await BusConnection.session(environment: environment)
        } catch {
            return .processTree(reason: "\(reason), and systemd's manager cannot be reached: \(error)")
        }
        defer { Task { await bus.close() } }
        do {
            let result = try await SystemdScope.start(unit: unit, pid: pid, description: "joule app \(name)", on: bus)
            guard result == "done" else { return .processTree(reason: "\(reason), and systemd did not start \(unit): \(result)") }
        } catch {
            return .processTree(reason: "\(reason), and systemd did not make a scope: \(error)")
        }
        guard let cgroup = procfs.cgroup(pid), freezer.isFreezable(cgroup) else {
            return .processTree(reason: "\(reason), and the scope \(unit)'s cgroup is not this user's to write")
        }
        return .scope(unit: unit, cgroup: cgroup)
    }
}
