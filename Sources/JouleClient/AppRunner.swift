import JouleWire
import JouleHardware
import JouleEnergy
import JouleWorkloads
import JouleApps

/// `joule run`: starts a command in its own cgroup (or, without one, its own process tree),
/// passes stdin, stdout and the exit status through, and supervises its lifecycle on its own
/// with an `AppSupervisor`, reachable by `joule app` through a control socket.
///
/// Files, in the runtime directory's `apps/`: `NAME.lifecycle` (the app's socket),
/// `NAME.control` (for `joule app`), `NAME.paused.json` (the pause journal, present only
/// while something is held).
package struct AppRunner: Sendable {
    package var name: String
    package var command: [String]
    package var configuration: AppLifecycleMachine.Configuration
    package var runtime: RuntimeDirectory
    package var environment: [String: String]
    /// Prefixes /sys/fs/cgroup (tests).
    package var cgroupRoot: String = "/"

    /// joule's own failures (before the command ran) exit with this status.
    package static let setupFailure: Int32 = 1
    /// A command that cannot start exits with this, as in a shell.
    package static let cannotStart: Int32 = 127
    /// The name the user chose (or the command's) is already supervised: their input, exit 2.
    package static let nameTaken: Int32 = 2

    package init(name: String?, command: [String], configuration: AppLifecycleMachine.Configuration,
                runtime: RuntimeDirectory, environment: [String: String]) {
        self.name = name ?? Self.defaultName(command)
        self.command = command
        self.configuration = configuration
        self.runtime = runtime
        self.environment = environment
    }

    /// The command's file name, with characters an app name may not hold replaced by `_`.
    package static func defaultName(_ command: [String]) -> String {
        let base = command.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? "app"
        var name = String(base.map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character)) ? character : "_"
        }.prefix(64))
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        return name.isEmpty ? "app" : name
    }

    package var appsDirectory: String { runtime.file("apps") }
    package var lifecycleSocket: String { appsDirectory + "/" + name + ".lifecycle" }
    package var controlSocket: String { appsDirectory + "/" + name + ".control" }
    package var journalPath: String { appsDirectory + "/" + name + AppPauseLedger.suffix }
    /// The last reason given for suspending process trees, so it is said once per boot (the
    /// runtime directory's life), not on every run: the machine's cgroups rarely change.
    var containmentNote: String { appsDirectory + "/process-tree-reason" }

    private func noteProcessTree(_ reason: String, say: (String) -> Void) {
        guard (try? FileSystem.readText(containmentNote)) != reason else { return }
        say("suspending with SIGSTOP/SIGCONT of the process tree: \(reason) (said once until the reason changes)")
        try? AtomicFile.write(reason, to: containmentNote, mode: 0o600)
    }

    /// Low Power Mode and the thermal state halve the grace and budget: from joule daemon's
    /// org.joule.Energy1 when it runs (followed until the app exits), else from the stored
    /// override (`joule lowpower on`), read once.
    static func followConditions(supervisor: AppSupervisor, environment: [String: String]) async -> Task<Void, Never>? {
        // With the daemon, the answer is the task following it (it closes the client); without, none.
        await DaemonClient.withDaemonOrLocal(environment: environment, following: true) { daemon -> Task<Void, Never>?? in
            if let state = try? await daemon.state() {
                await supervisor.setConditions(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState)
            }
            return Task {
                guard let events = try? await daemon.events() else { return }
                for await event in events {
                    switch event {
                    case .state(let state):
                        await supervisor.setConditions(lowPowerMode: state.lowPowerMode, thermalState: state.thermalState)
                    case .energy(let timed):
                        await supervisor.setConditions(lowPowerMode: timed.lowPowerMode, thermalState: timed.thermalState)
                    }
                }
                await daemon.close()
            }
        } local: {
            let on = LowPowerOverrideStore.forCurrentUser()?.load() == .on
            await supervisor.setConditions(lowPowerMode: on, thermalState: .nominal)
            return nil
        }
    }

    /// Runs the command to its end and returns the status to exit with. `say` prints joule's
    /// own lines (on stderr, prefixed by the caller).
    package func run(say: @escaping @Sendable (String) -> Void) async -> Int32 {
        guard AppSupervisorError.isValidName(name) else {
            say(AppSupervisorError.invalidName(name).description)
            return Self.setupFailure
        }
        let controller = PidfdProcessController(root: "/", cgroupRoot: cgroupRoot)
        do {
            try runtime.create()
            try FileSystem.makeDirectories(appsDirectory, mode: 0o700)
        } catch {
            say("cannot create \(appsDirectory): \(error)")
            return Self.setupFailure
        }
        for line in AppPauseLedger.recoverLeftovers(in: appsDirectory, controller: controller) { say(line) }
        if (try? SeqPacketClient(path: controlSocket)) != nil {
            say(AppSupervisorError.nameInUse(name).description + " (by another joule run; pick one with --name)")
            return Self.nameTaken
        }
        do {
            try ChildProcess.becomeSubreaper()
        } catch {
            say("\(error)")
            return Self.setupFailure
        }
        var containment = AppContainment.choose(name: name, environment: environment, procfs: controller.procfs, freezer: controller.freezer)
        var cgroupProcs: String?
        if case .cgroup(let cgroup) = containment { cgroupProcs = controller.freezer.directory(cgroup) + "/cgroup.procs" }
        // With joule daemon running, the app is registered with it and it supervises.
        var daemon = await AppsClient.find(environment: environment)
        var socketPath = lifecycleSocket
        if let client = daemon {
            do {
                socketPath = try await client.register(name: name, configuration: configuration)
            } catch {
                if case .remote(_, _, let errorName, let message) = error, errorName == AppsBus.nameInUseError {
                    say(message + " (under joule daemon; pick another with --name)")
                    return Self.nameTaken
                }
                say("joule daemon did not take the app (\(error)); supervising it here")
                await client.close()
                daemon = nil
            }
        }
        var childEnvironment = environment
        childEnvironment["JOULE_LIFECYCLE_SOCKET"] = socketPath
        childEnvironment["JOULE_APP_NAME"] = name
        let child: ChildProcess
        do {
            child = try ChildProcess(command: command, environment: childEnvironment, cgroupProcs: cgroupProcs)
        } catch {
            say(error.description)
            return Self.cannotStart
        }
        guard let stat = (try? controller.procfs.stat(child.pid)) ?? nil else {
            child.abandon()
            say("\(command[0]): its process vanished before it started")
            return Self.cannotStart
        }
        if case .systemdScope(let reason) = containment {
            // The child waits at its gate while systemd moves it.
            containment = await AppContainment.enterScope(
                app: name, pid: child.pid, reason: reason, environment: environment, procfs: controller.procfs,
                freezer: controller.freezer)
        }
        // Said once the program runs: a name in use or a program that cannot start is the
        // first and only line.
        var treeReason: String?
        if case .processTree(let reason) = containment { treeReason = reason }
        // A cgroup joule made is removed at the end; systemd collects its scopes.
        var madeCgroup: String?
        if case .cgroup(let path) = containment { madeCgroup = path }
        if let daemon {
            if let treeReason { noteProcessTree(treeReason, say: say) }
            return await runRegistered(
                child: child, daemon: daemon, cgroup: containment.cgroup, madeCgroup: madeCgroup, controller: controller, say: say)
        }
        let actuator: any AppActuator = if let cgroup = containment.cgroup {
            CgroupAppActuator(controller: controller, cgroup: cgroup)
        } else {
            ProcessTreeActuator(controller: controller, anchor: CurrentProcess.pid)
        }
        let me = (try? controller.procfs.stat(CurrentProcess.pid))??.identity
        let supervisor = AppSupervisor(
            clock: SystemClock(), ledger: AppPauseLedger(path: journalPath, owner: me),
            reports: ReportStore.defaultDirectory().map(ReportStore.init(directory:)), log: say)
        let registration = AppRegistration(
            name: name, identity: stat.identity, uid: CurrentProcess.realUserID, configuration: configuration,
            actuator: actuator, socketPath: lifecycleSocket)
        let control: AppControlServer
        let conditions = await Self.followConditions(supervisor: supervisor, environment: environment)
        defer { conditions?.cancel() }
        do {
            try await supervisor.add(registration, announce: false)
            control = try AppControlServer(path: controlSocket, supervisor: supervisor, log: say)
        } catch {
            child.abandon()
            say("\(error)")
            _ = await child.termination(reapOrphans: false)
            return Self.setupFailure
        }
        let termination: ChildProcess.Termination
        let signals = try? SignalListener([.interrupt, .terminate, .hangup]) { signal in
            Task {
                // A stopped or frozen app cannot act on a signal: continue it first. The
                // terminal already sent SIGINT to the app's process group.
                await supervisor.releaseAll()
                if signal != .interrupt { child.send(signal) }
            }
        }
        do {
            try child.release()
            if let treeReason { noteProcessTree(treeReason, say: say) }
            await supervisor.announce(name)
            termination = await child.termination(reapOrphans: true)
        } catch {
            say(error.description)
            _ = await child.termination(reapOrphans: true)
            await supervisor.exited(name, detail: "cannot start: \(error.reason)")
            control.stop()
            return Self.cannotStart
        }
        signals?.cancel()
        await supervisor.exited(name, detail: termination.description)
        await supervisor.finishEvents()
        await control.finish()
        if let madeCgroup { try? controller.freezer.remove(madeCgroup) }
        return termination.shellStatus
    }

    /// The app runs under joule daemon's supervisor: this process only starts it, passes
    /// SIGTERM and SIGHUP on as a terminate (the daemon thaws it first), and reports its end.
    private func runRegistered(
        child: ChildProcess, daemon: AppsClient, cgroup: String?, madeCgroup: String?, controller: PidfdProcessController,
        say: @escaping @Sendable (String) -> Void
    ) async -> Int32 {
        let name = name
        do {
            try await daemon.attach(name: name, pid: child.pid, cgroup: cgroup)
        } catch {
            child.abandon()
            _ = await child.termination(reapOrphans: false)
            try? await daemon.exited(name: name, detail: "not attached")
            await daemon.close()
            say("joule daemon did not attach the app: \(error)")
            return Self.setupFailure
        }
        let signals = try? SignalListener([.terminate, .hangup]) { _ in
            Task { try? await daemon.move(.terminate, app: name) }
        }
        let termination: ChildProcess.Termination
        let status: Int32
        do {
            try child.release()
            termination = await child.termination(reapOrphans: true)
            status = termination.shellStatus
        } catch {
            say(error.description)
            termination = await child.termination(reapOrphans: true)
            status = Self.cannotStart
        }
        signals?.cancel()
        do {
            try await daemon.exited(name: name, detail: termination.description)
        } catch {
            say("joule daemon: \(error)")
        }
        await daemon.close()
        if let madeCgroup { try? controller.freezer.remove(madeCgroup) }
        return status
    }
}
