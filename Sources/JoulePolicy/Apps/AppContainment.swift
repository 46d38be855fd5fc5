import JouleHardware

/// Where `joule run` puts its app: a cgroup v2 of its own under a subtree this user may
/// write (the delegated subtree: `$JOULE_CGROUP`, else the cgroup joule itself runs in), or,
/// where there is none (cgroup v1, or a subtree not delegated), the process tree, with the
/// reason said once.
public enum AppContainment: Sendable, Hashable {
    case cgroup(String)
    case processTree(reason: String)

    /// Picks and prepares the containment for app `name`: creates `BASE/joule-app-NAME`.
    public static func choose(name: String, environment: [String: String], procfs: ProcFS, freezer: CgroupFreezer) -> AppContainment {
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
            return .processTree(reason: "cgroup \(base) is not delegated to this user (its cgroup.procs is not writable)")
        }
        let cgroup = CgroupPath(base).appending("joule-app-" + name).description
        do {
            try freezer.create(cgroup)
        } catch {
            return .processTree(reason: "cannot create cgroup \(cgroup): \(error)")
        }
        guard freezer.processes(cgroup).isEmpty else {
            return .processTree(reason: "cgroup \(cgroup) already holds processes of another app named \(name)")
        }
        return .cgroup(cgroup)
    }
}
