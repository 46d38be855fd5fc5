import JouleHardware
import JouleApps

/// Desktop apps by application ID (issue 35): the config's `apps:` names them; each scope
/// of such an app in a user's `app.slice` is supervised from the moment it appears (its
/// cgroup frozen through `cgroup.freeze` when suspended, its user the one who may move it)
/// and let go, thawed, when the scope ends or the app leaves the config. An app not listed
/// is never touched. Scopes come and go through inotify on cgroupfs: no polling.
actor DaemonDesktopApps {
    private let supervisor: AppSupervisor
    private let controller: PidfdProcessController
    private let scanner: DesktopScopeScanner
    private let log: @Sendable (String) -> Void
    private var rules: [DesktopAppRule]
    /// Supervised scopes: the app's name by its cgroup.
    private var managed: [String: String] = [:]
    private var watch: DirectoryWatch?
    private var following: Task<Void, Never>?
    /// A matching scope with no process yet (systemd moves the pid in as it makes the scope)
    /// is looked at again once, this much later.
    static let retry: Duration = .seconds(1)
    private var retrying = false

    init(supervisor: AppSupervisor, rules: [DesktopAppRule], procRoot: String = "/", cgroupRoot: String = "/", log: @escaping @Sendable (String) -> Void) {
        self.supervisor = supervisor
        self.rules = rules
        controller = PidfdProcessController(root: procRoot, cgroupRoot: cgroupRoot)
        scanner = DesktopScopeScanner(freezer: controller.freezer)
        self.log = log
    }

    /// The names supervised now, by cgroup.
    var apps: [String: String] { managed }

    func start() async {
        guard !rules.isEmpty else { return }
        if watch == nil {
            do {
                let watch = try DirectoryWatch()
                self.watch = watch
                following = Task { [weak self] in
                    for await _ in watch.changes { await self?.rescan() }
                }
            } catch {
                log("apps: cannot watch cgroupfs for desktop apps (their scopes are looked at on SIGHUP only): \(error)")
            }
        }
        await rescan()
    }

    /// SIGHUP: the new list; apps no longer listed are let go.
    func reload(_ fresh: [DesktopAppRule]) async {
        rules = fresh
        for (cgroup, name) in managed where !fresh.contains(where: { $0.id == appID(of: name, cgroup: cgroup) }) {
            if !name.isEmpty {
                await supervisor.exited(name, detail: "no longer in the config's apps")
                log("apps: \(name): no longer in the config's apps; let go")
            }
            managed[cgroup] = nil
        }
        if !fresh.isEmpty { await start() }
    }

    func stop() {
        following?.cancel()
        watch?.stop()
        watch = nil
    }

    private func appID(of name: String, cgroup: String) -> String? {
        DesktopAppUnit(unit: CgroupPath(cgroup).components.last ?? "")?.appID
    }

    /// Brings supervision in line with the scopes there are now.
    func rescan() async {
        let scopes = scanner.scan()
        if let watch {
            var directories = ["/user.slice"] + scanner.appSlices().map(\.cgroup)
            directories += scopes.map { CgroupPath($0.cgroup).parent?.description ?? "" }
            for cgroup in Set(directories) where !cgroup.isEmpty {
                try? watch.watch(controller.freezer.directory(cgroup))
            }
        }
        let present = Set(scopes.map(\.cgroup))
        for (cgroup, name) in managed where !present.contains(cgroup) {
            let detail = "its scope \(CgroupPath(cgroup).components.last ?? cgroup) ended"
            if !name.isEmpty {
                await supervisor.exited(name, detail: detail)
                log("apps: \(name): \(detail); let go")
            }
            managed[cgroup] = nil
        }
        var empty = false
        for scope in scopes where managed[scope.cgroup] == nil {
            guard let rule = rules.first(where: { $0.id == scope.unit.appID }) else { continue }
            if !(await add(scope, rule)) { empty = true }
        }
        if empty, !retrying {
            retrying = true
            Task { [weak self] in
                try? await Task.sleep(for: Self.retry)
                await self?.retried()
            }
        }
    }

    private func retried() async {
        retrying = false
        await rescan()
    }

    /// Supervises `scope`; false when it has no process yet.
    private func add(_ scope: DesktopScope, _ rule: DesktopAppRule) async -> Bool {
        guard let pid = controller.freezer.processesInTree(scope.cgroup).min(),
              let stat = (try? controller.procfs.stat(pid)) ?? nil
        else { return false }
        let taken = Set(managed.values).union(await supervisor.names)
        var name = rule.id
        if taken.contains(name) { name = rule.id + "-" + scope.unit.instance }
        guard AppSupervisorError.isValidName(name) else {
            log("apps: \(scope.unit.unit): \(AppSupervisorError.invalidName(name)); not supervised")
            managed[scope.cgroup] = ""  // said once
            return true
        }
        let registration = AppRegistration(
            name: name, identity: stat.identity, uid: scope.uid, configuration: rule.configuration,
            actuator: CgroupAppActuator(controller: controller, cgroup: scope.cgroup), socketPath: nil, source: "scope")
        do throws(AppSupervisorError) {
            try await supervisor.add(registration)
            managed[scope.cgroup] = name
            log("apps: \(name): the desktop app \(scope.unit.appID) in \(scope.cgroup) (uid \(scope.uid))")
        } catch {
            log("apps: \(scope.unit.unit): \(error)")
            managed[scope.cgroup] = ""
        }
        return true
    }
}
