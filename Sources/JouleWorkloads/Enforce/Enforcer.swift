import JouleHardware
import JouleEnergy

/// Pauses and resumes workload classes as Low Power Mode and the thermal state change.
///
/// The decision is pure (`WorkloadClass.pauseCause`); this actor keeps what it holds paused,
/// acts through a `ProcessController`, and journals every hold before acting, so nothing is ever
/// left paused by a run that ends, fails, crashes or is killed. A target matched by several
/// classes is resumed only when none of them wants it paused.
public actor Enforcer<Controller: ProcessController> {
    private struct Hold {
        var target: PauseTarget
        var classes: [String]
        var handle: Controller.Handle?
    }

    public let policy: EnforcePolicy
    public let dryRun: Bool
    private let resolver: any WorkloadResolver
    private let controller: Controller
    private let journal: PauseJournal?
    private let owner: ProcessIdentity?
    private let clock: any JouleClock
    private let warn: @Sendable (String) -> Void

    private var holds: [PauseTarget.Key: Hold] = [:]
    private var order: [PauseTarget.Key] = []
    private var causes: [String: PauseCause] = [:]
    private var lowPowerMode: Bool?
    private var thermalState: ThermalState?
    private var reported: Set<String> = []

    /// - Parameters:
    ///   - journal: where holds are recorded; nil keeps no journal (tests of the decision).
    ///   - owner: this run's identity, written into the journal.
    public init(
        policy: EnforcePolicy, resolver: any WorkloadResolver, controller: Controller, journal: PauseJournal?,
        owner: ProcessIdentity?, clock: any JouleClock, dryRun: Bool = false,
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.policy = policy
        self.resolver = resolver
        self.controller = controller
        self.journal = journal
        self.owner = owner
        self.clock = clock
        self.dryRun = dryRun
        self.warn = warn
    }

    /// The classes paused now, in policy order.
    public var pausedClasses: [String] { policy.classes.map(\.name).filter { causes[$0] != nil } }

    /// The targets held paused now.
    public var heldTargets: [PauseTarget] { order.compactMap { holds[$0]?.target } }

    // MARK: journal

    /// Continues and thaws what an earlier run left in the journal, then removes it. Throws
    /// when another live run owns the journal. A dry run only reports, and leaves a live
    /// run's journal alone.
    public func recoverJournal() throws(EnforcerError) -> [EnforcementAction] {
        guard let journal else { return [] }
        let contents: PauseJournal.Contents?
        do {
            contents = try journal.load()
        } catch {
            throw .journal(error)
        }
        guard let contents else { return [] }
        if let previous = contents.owner, previous != owner, resolver.isAlive(previous) {
            // A dry run beside a live run only watches: the live run's holds are its own.
            if dryRun { return [] }
            throw .anotherRunIsActive(pid: previous.pid, journal: journal.path)
        }
        var byClass: [(String, [TargetOutcome])] = []
        for entry in contents.entries {
            let outcome = dryRun ? TargetOutcome(target: entry.target, result: .wouldResume) : resumeLeftover(entry.target)
            let name = entry.classes.first ?? "unknown"
            if let index = byClass.firstIndex(where: { $0.0 == name }) {
                byClass[index].1.append(outcome)
            } else {
                byClass.append((name, [outcome]))
            }
        }
        if !dryRun {
            do {
                try journal.remove()
            } catch {
                warn("cannot remove \(journal.path): \(error)")
            }
        }
        let now = clock.now()
        return byClass.map { name, outcomes in
            EnforcementAction(
                timestamp: now, kind: .resume, className: name,
                level: policy.classes.first { $0.name == name }?.level, reason: "journal",
                lowPowerMode: nil, thermalState: nil, dryRun: dryRun, targets: outcomes)
        }
    }

    private func resumeLeftover(_ target: PauseTarget) -> TargetOutcome {
        do {
            switch target {
            case .process(let identity, _):
                return TargetOutcome(target: target, result: try controller.resumeLeftover(identity) ? .continued : .gone)
            case .cgroup(let path):
                return TargetOutcome(target: target, result: outcome(try controller.thaw(cgroup: path)))
            }
        } catch {
            return TargetOutcome(target: target, result: ProcFS.isVanished(error) ? .gone : .failed, detail: "\(error)")
        }
    }

    // MARK: state changes

    /// Applies a new state: resumes classes that may run again, pauses classes that must stop.
    public func update(lowPowerMode: Bool, thermalState: ThermalState) -> [EnforcementAction] {
        self.lowPowerMode = lowPowerMode
        self.thermalState = thermalState
        var actions: [EnforcementAction] = []
        for workloadClass in policy.classes where causes[workloadClass.name] != nil {
            if workloadClass.pauseCause(lowPowerMode: lowPowerMode, thermalState: thermalState) == nil {
                actions.append(resume(workloadClass, reason: "recovered"))
            }
        }
        for workloadClass in policy.classes {
            guard let cause = workloadClass.pauseCause(lowPowerMode: lowPowerMode, thermalState: thermalState) else {
                continue
            }
            if causes[workloadClass.name] == nil {
                causes[workloadClass.name] = cause
                if let action = pause(workloadClass, reason: cause.description, onlyNew: false) { actions.append(action) }
            } else {
                causes[workloadClass.name] = cause
            }
        }
        return actions
    }

    /// Re-resolves the selectors of paused classes: new matching processes are paused too,
    /// exited ones are forgotten, and a held cgroup found thawed (its unit restarted, or
    /// someone wrote 0) is frozen again. Lines only for classes with new or re-frozen targets.
    public func rescan() -> [EnforcementAction] {
        var actions: [EnforcementAction] = []
        if !dryRun {
            for key in order {
                guard let hold = holds[key], case .cgroup(let path) = hold.target,
                      (try? controller.freezeState(cgroup: path)) == .thawed,
                      let className = hold.classes.first
                else { continue }
                let (result, _, detail) = act(pausing: hold.target)
                let level = policy.classes.first { $0.name == className }?.level
                actions.append(action(.pause, className: className, level: level, reason: "rescan",
                                      targets: [TargetOutcome(target: hold.target, result: result, detail: detail)]))
            }
        }
        var changed = false
        for key in order {
            guard let hold = holds[key], case .process(let identity, _) = hold.target, !resolver.isAlive(identity) else {
                continue
            }
            if let handle = hold.handle {
                _ = try? controller.resume(handle)  // ESRCH: only clears the crash-guard entry
                controller.close(handle)
            }
            holds[key] = nil
            changed = true
        }
        if changed {
            order.removeAll { holds[$0] == nil }
            writeJournal()
        }
        return actions + policy.classes.compactMap { workloadClass in
            causes[workloadClass.name] == nil ? nil : pause(workloadClass, reason: "rescan", onlyNew: true)
        }
    }

    /// Resumes every paused class (on exit). Afterwards nothing is held and the journal is gone.
    public func resumeAll(reason: String) -> [EnforcementAction] {
        var actions: [EnforcementAction] = []
        for workloadClass in policy.classes where causes[workloadClass.name] != nil {
            actions.append(resume(workloadClass, reason: reason))
        }
        // Holds of no class cannot exist, but nothing must stay paused even if one did.
        for key in order {
            guard let hold = holds[key] else { continue }
            actions.append(action(.resume, className: hold.classes.first ?? "unknown", level: nil, reason: reason,
                                  targets: [release(hold)]))
        }
        holds = [:]
        order = []
        writeJournal()
        return actions
    }

    // MARK: acting

    private func pause(_ workloadClass: WorkloadClass, reason: String, onlyNew: Bool) -> EnforcementAction? {
        let resolution = resolver.resolve(workloadClass)
        for problem in resolution.problems where reported.insert("\(workloadClass.name): \(problem)").inserted {
            warn("class \(workloadClass.name): \(problem)")
        }
        var outcomes: [TargetOutcome] = []
        var fresh: [PauseTarget] = []
        for target in resolution.targets {
            if var hold = holds[target.key] {
                if !hold.classes.contains(workloadClass.name) {
                    hold.classes.append(workloadClass.name)
                    holds[target.key] = hold
                    if !onlyNew { outcomes.append(TargetOutcome(target: target, result: .heldByOtherClass)) }
                }
            } else {
                fresh.append(target)
            }
        }
        if onlyNew {
            for protected in resolution.protected
            where reported.insert("\(workloadClass.name): protected \(protected.target.key)").inserted {
                warn("class \(workloadClass.name): leaving \(protected.target) alone: \(protected.reason.pauseDescription)")
            }
        }
        if onlyNew && fresh.isEmpty { return nil }

        // Journal first: a SIGKILL between the signal and the write must not lose a hold, and
        // work that could not be recorded is not paused at all.
        if !dryRun && !fresh.isEmpty
            && !writeJournal(pending: fresh.map { PauseJournal.Entry(target: $0, classes: [workloadClass.name]) }) {
            for target in fresh {
                outcomes.append(TargetOutcome(target: target, result: .failed, detail: "not paused: the pause journal cannot be written"))
            }
            fresh = []
        }
        for target in fresh {
            let (result, handle, detail) = act(pausing: target)
            outcomes.append(TargetOutcome(target: target, result: result, detail: detail))
            if [.stopped, .frozen, .freezing, .wouldPause].contains(result) {
                holds[target.key] = Hold(target: target, classes: [workloadClass.name], handle: handle)
                order.append(target.key)
            }
        }
        if !fresh.isEmpty { writeJournal() }
        if !onlyNew {
            for protected in resolution.protected {
                outcomes.append(TargetOutcome(target: protected.target, result: .protected, detail: protected.reason.pauseDescription))
            }
        }
        return action(.pause, className: workloadClass.name, level: workloadClass.level, reason: reason, targets: outcomes)
    }

    private func act(pausing target: PauseTarget) -> (TargetOutcome.Result, Controller.Handle?, String?) {
        if dryRun { return (.wouldPause, nil, nil) }
        do {
            switch target {
            case .process(let identity, _):
                guard let handle = try controller.stop(identity) else { return (.gone, nil, nil) }
                return (.stopped, handle, nil)
            case .cgroup(let path):
                return (outcome(try controller.freeze(cgroup: path)), nil, nil)
            }
        } catch {
            if case .cgroup = target, error.errno == .noEntry {
                return (.failed, nil, "no cgroup v2 freezer (\(error.path) is missing: cgroup v1, the root cgroup, or a kernel before 5.2)")
            }
            return (ProcFS.isVanished(error) ? .gone : .failed, nil, "\(error)")
        }
    }

    private func resume(_ workloadClass: WorkloadClass, reason: String) -> EnforcementAction {
        causes[workloadClass.name] = nil
        var outcomes: [TargetOutcome] = []
        for key in order {
            guard var hold = holds[key], hold.classes.contains(workloadClass.name) else { continue }
            hold.classes.removeAll { $0 == workloadClass.name }
            if hold.classes.isEmpty {
                outcomes.append(release(hold))
                holds[key] = nil
            } else {
                holds[key] = hold
                outcomes.append(TargetOutcome(target: hold.target, result: .heldByOtherClass, detail: hold.classes.joined(separator: ",")))
            }
        }
        order.removeAll { holds[$0] == nil }
        writeJournal()
        return action(.resume, className: workloadClass.name, level: workloadClass.level, reason: reason, targets: outcomes)
    }

    /// Continues or thaws one hold and releases its handle.
    private func release(_ hold: Hold) -> TargetOutcome {
        if dryRun { return TargetOutcome(target: hold.target, result: .wouldResume) }
        do {
            switch hold.target {
            case .process:
                guard let handle = hold.handle else { return TargetOutcome(target: hold.target, result: .gone) }
                defer { controller.close(handle) }
                return TargetOutcome(target: hold.target, result: try controller.resume(handle) ? .continued : .gone)
            case .cgroup(let path):
                return TargetOutcome(target: hold.target, result: outcome(try controller.thaw(cgroup: path)))
            }
        } catch {
            return TargetOutcome(target: hold.target, result: ProcFS.isVanished(error) ? .gone : .failed, detail: "\(error)")
        }
    }

    private func outcome(_ state: CgroupFreezeState) -> TargetOutcome.Result {
        switch state {
        case .frozen: .frozen
        case .freezing: .freezing
        case .thawed: .thawed
        }
    }

    private func action(
        _ kind: EnforcementAction.Kind, className: String, level: WorkloadLevel?, reason: String, targets: [TargetOutcome]
    ) -> EnforcementAction {
        EnforcementAction(
            timestamp: clock.now(), kind: kind, className: className, level: level, reason: reason,
            lowPowerMode: lowPowerMode, thermalState: thermalState, dryRun: dryRun, targets: targets)
    }

    /// Records the holds (and `pending` ones about to be made); false when the write failed.
    @discardableResult
    private func writeJournal(pending: [PauseJournal.Entry] = []) -> Bool {
        guard let journal, !dryRun else { return true }
        let entries = order.compactMap { key in holds[key].map { PauseJournal.Entry(target: $0.target, classes: $0.classes) } }
        do {
            try journal.save(PauseJournal.Contents(owner: owner, entries: entries + pending))
            return true
        } catch {
            if reported.insert("journal: \(error)").inserted {
                warn("cannot write the pause journal \(journal.path): \(error)")
            }
            return false
        }
    }
}
