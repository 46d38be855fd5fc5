import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleApps

/// The daemon's app supervisor (issue 14): `org.joule.Apps1`, the apps `joule run` registers,
/// their lifecycle sockets in `RUNTIME/apps/`, and what moves them besides requests: Low
/// Power Mode and the thermal state (halved times), and logind's `LockedHint` / `IdleHint`
/// on a user's session (that user's apps become inactive). A `joule run` whose bus
/// connection goes away takes its app out of supervision, thawed.
actor DaemonApps {
    let supervisor: AppSupervisor
    private let bus: BusConnection
    private let systemBus: BusConnection?
    private let directory: String
    private let log: @Sendable (String) -> Void
    private let controller = PidfdProcessController()
    private var service: AppsService?
    /// Names registered and not yet attached or exited, by name.
    private var reserved: [String: Reservation] = [:]
    /// The bus name of the `joule run` that registered each app.
    private var registrants: [String: String] = [:]
    private var watchers: [Task<Void, Never>] = []

    private struct Reservation {
        var sender: String
        var uid: UInt32
        var configuration: AppLifecycleMachine.Configuration
    }

    init(bus: BusConnection, systemBus: BusConnection?, runtime: RuntimeDirectory, reports: ReportStore?, log: @escaping @Sendable (String) -> Void) throws(JouleDaemon.Failure) {
        self.bus = bus
        self.systemBus = systemBus
        self.log = log
        directory = runtime.file("apps")
        do {
            try runtime.create(mode: 0o755)
            // Users reach their own sockets (each 0600, theirs) inside it.
            try FileSystem.makeDirectories(directory, mode: 0o755)
        } catch {
            throw .setup("cannot create \(directory): \(error)")
        }
        for line in AppPauseLedger.recoverLeftovers(in: directory, controller: controller) { log("apps: \(line)") }
        let me = (try? ProcFS().stat(CurrentProcess.pid))??.identity
        supervisor = AppSupervisor(
            clock: SystemClock(), ledger: AppPauseLedger(path: directory + "/daemon" + AppPauseLedger.suffix, owner: me),
            reports: reports, log: { log("apps: " + $0) })
    }

    func start(lowPowerMode: Bool, thermalState: ThermalState) async throws(JouleDaemon.Failure) {
        await supervisor.setConditions(lowPowerMode: lowPowerMode, thermalState: thermalState)
        let handlers = AppsService.Handlers(
            register: { [weak self] sender, credentials, options throws(BusMethodError) in
                guard let self else { throw .failed("joule daemon is stopping") }
                return try await self.register(sender: sender, uid: credentials.uid, options: options)
            },
            attach: { [weak self] sender, credentials, name, pid, cgroup throws(BusMethodError) in
                guard let self else { throw .failed("joule daemon is stopping") }
                try await self.attach(sender: sender, credentials: credentials, name: name, pid: pid, cgroup: cgroup)
            },
            exited: { [weak self] sender, name, detail throws(BusMethodError) in
                guard let self else { throw .failed("joule daemon is stopping") }
                try await self.exited(sender: sender, name: name, detail: detail)
            },
            move: { [weak self] credentials, request, name throws(BusMethodError) in
                guard let self else { throw .failed("joule daemon is stopping") }
                try await self.move(uid: credentials.uid, request, name)
            },
            list: { [weak self] credentials in await self?.list(uid: credentials.uid) ?? "[]" })
        do {
            service = try await AppsService.export(on: bus, handlers: handlers, log: log)
        } catch {
            throw .bus("cannot export \(AppsBus.objectPath): \(error)")
        }
        let events = await supervisor.events()
        let service = service
        watchers.append(Task { for await line in events { await service?.announce(line) } })
        do {
            let owners = try await bus.signals(matching:
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
            watchers.append(Task { [weak self] in
                for await signal in owners {
                    guard signal.arguments.count == 3, let name = signal.arguments[0].stringValue,
                          signal.arguments[2].stringValue == "", name.hasPrefix(":") else { continue }
                    await self?.vanished(name)
                }
            })
        } catch {
            log("apps: cannot follow bus names, so a joule run that dies keeps its app registered: \(error)")
        }
        await followSessions()
    }

    func update(lowPowerMode: Bool, thermalState: ThermalState) async {
        await supervisor.setConditions(lowPowerMode: lowPowerMode, thermalState: thermalState)
    }

    func stop() async {
        for watcher in watchers { watcher.cancel() }
        await supervisor.releaseAll()
        await supervisor.finishEvents()
    }

    // MARK: logind

    /// logind's sessions: `LockedHint` or `IdleHint` turning true makes that user's apps inactive.
    private func followSessions() async {
        guard let systemBus else { return }
        do {
            let changes = try await systemBus.signals(matching:
                "type='signal',sender='org.freedesktop.login1',interface='org.freedesktop.DBus.Properties',"
                + "member='PropertiesChanged',arg0='org.freedesktop.login1.Session'")
            watchers.append(Task { [weak self] in
                for await change in changes {
                    guard change.arguments.count >= 2, case .array(_, let entries) = change.arguments[1] else { continue }
                    let hints = entries.contains { entry in
                        guard case .dictEntry(let key, let value) = entry, let key = key.stringValue else { return false }
                        return (key == "LockedHint" || key == "IdleHint") && value.unwrapped.boolValue == true
                    }
                    if hints { await self?.sessionWentInactive(path: change.path, hint: "locked or idle") }
                }
            })
        } catch {
            log("apps: cannot follow logind's sessions: \(error)")
        }
    }

    private func sessionWentInactive(path: String, hint: String) async {
        guard let systemBus else { return }
        // User is (uo): the uid and the user's object.
        guard let user = try? await systemBus.property(
            destination: "org.freedesktop.login1", path: path, interface: "org.freedesktop.login1.Session", name: "User"),
              case .structure(let fields) = user, let uid = fields.first?.uint32Value else {
            log("apps: session \(path) is \(hint), but its user cannot be read")
            return
        }
        log("apps: session \(path) of uid \(uid) is \(hint): its apps become inactive")
        await supervisor.sessionInactive(uid: uid)
    }

    // MARK: methods

    private func register(sender: String, uid: UInt32, options: [String: BusValue]) async throws(BusMethodError) -> String {
        guard let name = options["name"]?.stringValue else { throw .invalidArgs("Register: the option \"name\" (s) is missing") }
        guard AppSupervisorError.isValidName(name) else { throw .invalidArgs(AppSupervisorError.invalidName(name).description) }
        guard reserved[name] == nil, !(await supervisor.names.contains(name)) else {
            throw BusMethodError(name: AppsBus.nameInUseError, message: AppSupervisorError.nameInUse(name).description)
        }
        var configuration = AppLifecycleMachine.Configuration()
        func seconds(_ key: String) throws(BusMethodError) -> Duration? {
            guard let value = options[key] else { return nil }
            let number: Double? = value.doubleValue ?? value.uint32Value.map(Double.init)
            guard let number, number.isFinite, number >= 0, number <= 86_400 else {
                throw .invalidArgs("Register: \"\(key)\" must be 0 to 86400 seconds (d), not \(value)")
            }
            return .seconds(number)
        }
        if let grace = try seconds("grace") { configuration.grace = grace }
        if let budget = try seconds("backgroundBudget") { configuration.backgroundBudget = budget }
        if let window = try seconds("cpuWindow") {
            guard window > .zero else { throw .invalidArgs("Register: \"cpuWindow\" must be more than 0 seconds") }
            configuration.cpuWindow = window
        }
        if let limit = options["cpuLimit"] {
            guard let percent = limit.doubleValue, percent.isFinite, percent > 0 else {
                throw .invalidArgs("Register: \"cpuLimit\" must be a percentage above 0 (d), not \(limit)")
            }
            configuration.cpuLimitPercent = percent
        }
        if let suspends = options["suspends"] {
            guard let flag = suspends.boolValue else { throw .invalidArgs("Register: \"suspends\" must be a boolean (b)") }
            configuration.suspends = flag
        }
        for key in options.keys where !["name", "grace", "backgroundBudget", "cpuLimit", "cpuWindow", "suspends"].contains(key) {
            throw .invalidArgs("Register: unknown option \"\(key)\"")
        }
        reserved[name] = Reservation(sender: sender, uid: uid, configuration: configuration)
        return socketPath(name)
    }

    private func socketPath(_ name: String) -> String { directory + "/" + name + ".lifecycle" }

    private func attach(sender: String, credentials: BusCredentials, name: String, pid: UInt32, cgroup: String) async throws(BusMethodError) {
        guard let reservation = reserved[name], reservation.sender == sender else {
            throw BusMethodError(name: AppsBus.unknownAppError, message: "Attach: \(AppSupervisorError.shown(name)) was not registered by this connection")
        }
        let procfs = controller.procfs
        guard pid > 0, pid <= UInt32(Int32.max), let stat = (try? procfs.stat(Int32(pid))) ?? nil else {
            throw .invalidArgs("Attach: no process \(pid)")
        }
        // Only a child of the caller, running as the caller's user: the uid is what authorises
        // (the bus vouches for the caller's, /proc for the process's); the parent pid only ties
        // the process to this `joule run`.
        guard UInt32(stat.ppid) == credentials.pid else {
            throw .accessDenied("Attach: process \(pid) is not a child of the caller (pid \(credentials.pid))")
        }
        guard credentials.uid == 0 || procfs.status(Int32(pid))?.realUID == credentials.uid else {
            throw .accessDenied("Attach: process \(pid) does not run as the caller's uid \(credentials.uid)")
        }
        let actuator: any AppActuator
        if cgroup.isEmpty {
            actuator = ProcessTreeActuator(controller: controller, anchor: Int32(credentials.pid))
        } else {
            guard procfs.cgroup(Int32(pid)) == cgroup else {
                throw .invalidArgs("Attach: process \(pid) is not in cgroup \(cgroup)")
            }
            actuator = CgroupAppActuator(controller: controller, cgroup: cgroup)
        }
        let registration = AppRegistration(
            name: name, identity: stat.identity, uid: reservation.uid, configuration: reservation.configuration,
            actuator: actuator, socketPath: socketPath(name))
        let gid = UserAccount.lookup(uid: reservation.uid)?.gid ?? reservation.uid
        do {
            try await supervisor.add(registration, socketOwner: (reservation.uid, gid))
        } catch {
            throw .failed("\(error)")
        }
        reserved[name] = nil
        registrants[name] = sender
    }

    private func exited(sender: String, name: String, detail: String) async throws(BusMethodError) {
        if reserved[name]?.sender == sender {
            reserved[name] = nil
            return
        }
        guard registrants[name] == sender else {
            throw BusMethodError(name: AppsBus.unknownAppError, message: "Exited: \(AppSupervisorError.shown(name)) is not an app this connection registered")
        }
        registrants[name] = nil
        await supervisor.exited(name, detail: detail)
    }

    private func move(uid: UInt32, _ request: AppLifecycleRequest, _ name: String) async throws(BusMethodError) {
        guard let owner = await supervisor.owner(of: name) else {
            // Named among what the caller may move: its own apps, or every app for root.
            var visible: [String] = []
            for entry in await supervisor.list() {
                let entryOwner = await supervisor.owner(of: entry.app)
                if uid == 0 || entryOwner == uid { visible.append(entry.app) }
            }
            throw BusMethodError(name: AppsBus.unknownAppError, message: AppSupervisorError.unknownApp(name, known: visible).description)
        }
        guard uid == owner || uid == 0 else {
            throw .accessDenied("\(name) belongs to uid \(owner); only that user or root may move it (the caller is uid \(uid))")
        }
        do {
            try await supervisor.request(request, app: name)
        } catch {
            throw BusMethodError(name: AppsBus.unknownAppError, message: error.description)
        }
    }

    private func list(uid: UInt32) async -> String {
        var entries: [JSONValue] = []
        for entry in await supervisor.list() {
            let owner = await supervisor.owner(of: entry.app)
            if uid == 0 || owner == uid { entries.append(entry.json) }
        }
        return JSONValue.array(entries).serialized
    }

    /// A `joule run` left the bus without saying its app exited: stop supervising it, thawed.
    private func vanished(_ sender: String) async {
        for (name, reservation) in reserved where reservation.sender == sender { reserved[name] = nil }
        for (name, registrant) in registrants where registrant == sender {
            registrants[name] = nil
            log("apps: the joule run of \(name) left the bus; releasing it")
            await supervisor.exited(name, detail: "its joule run left the bus")
        }
    }
}
