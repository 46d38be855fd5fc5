import JouleHardware

/// Resolves selectors on a live system (or a fake tree): processes from `ROOT/proc`, cgroups
/// under `ROOT/sys/fs/cgroup`.
///
/// - `process: NAME` matches comm exactly; the kernel cuts comm to 15 bytes, so a longer NAME
///   matches a comm equal to its first 15 bytes whose argv[0] base name is NAME.
/// - `processRegex` searches comm, `commandRegex` the arguments joined by spaces.
/// - `pidFile` reads the first line of the file as a PID.
/// - `unit: NAME` is found by scanning /proc/*/cgroup for a path with a component equal to
///   NAME (`/system.slice/NAME`, `/user.slice/user-1000.slice/user@1000.service/app.slice/NAME`):
///   the path up to that component is the unit's cgroup. A unit with no process has nothing
///   to freeze and resolves to no target.
/// - `cgroup` must exist.
public struct ProcWorkloadResolver: WorkloadResolver {
    public let procfs: ProcFS
    public let freezer: CgroupFreezer
    public let safety: SafetyRules

    public init(procRoot: String = "/", cgroupRoot: String = "/", safety: SafetyRules) {
        procfs = ProcFS(root: procRoot)
        freezer = CgroupFreezer(root: cgroupRoot)
        self.safety = safety
    }

    public func isAlive(_ identity: ProcessIdentity) -> Bool {
        guard let stat = try? procfs.stat(identity.pid) else { return false }
        return stat.startTimeTicks == identity.startTimeTicks && stat.state != .zombie
    }

    /// What is learnt about one process while scanning.
    private struct Candidate {
        var stat: ProcessStat
        var commandLine: [String]?
    }

    public func resolve(_ workloadClass: WorkloadClass) -> WorkloadResolution {
        var resolution = WorkloadResolution()
        var seen: Set<PauseTarget.Key> = []
        func add(_ target: PauseTarget, _ protection: Protection?) {
            guard seen.insert(target.key).inserted else { return }
            if let protection {
                resolution.protected.append(ProtectedTarget(target: target, reason: protection))
            } else {
                resolution.targets.append(target)
            }
        }
        var processes: [Candidate]?
        func allProcesses() -> [Candidate] {
            if let processes { return processes }
            let scanned = scan()
            processes = scanned
            return scanned
        }

        for selector in workloadClass.selectors {
            switch selector {
            case .cgroup(let path):
                if freezer.exists(path) {
                    add(.cgroup(path), cgroupProtection(path))
                } else {
                    resolution.problems.append("\(selector): no such cgroup (\(freezer.directory(path)))")
                }
            case .unit(let name):
                for path in unitCgroups(name, allProcesses()) { add(.cgroup(path), cgroupProtection(path)) }
            case .process, .processRegex, .commandRegex:
                guard let matcher = Self.matcher(selector) else { continue }
                for candidate in allProcesses() {
                    let stat = candidate.stat
                    let procfs = procfs
                    let asked = ProcessMatcher.Candidate(pid: stat.pid, comm: stat.comm, commandLine: { procfs.commandLine(stat.pid) })
                    if matcher.matches(asked) { add(.process(stat.identity, name: stat.comm), protection(stat)) }
                }
            case .pidFile(let path):
                switch pidFileProcess(path) {
                case .success(let stat?):
                    add(.process(stat.identity, name: stat.comm), protection(stat))
                case .success(nil):
                    break
                case .failure(let message):
                    resolution.problems.append("\(selector): \(message)")
                }
            }
        }
        return resolution
    }

    private func scan() -> [Candidate] {
        guard let pids = try? procfs.pids() else { return [] }
        return pids.compactMap { pid in
            guard let stat = try? procfs.stat(pid), stat.state != .zombie else { return nil }
            return Candidate(stat: stat)
        }
    }

    /// The matcher of a process selector; nil for other selectors and patterns that do not
    /// compile (the policy loader refuses those).
    private static func matcher(_ selector: WorkloadSelector) -> ProcessMatcher? {
        switch selector {
        case .process(let name):
            return ProcessMatcher(patterns: [.name(name)])
        case .processRegex(let text):
            guard case .success(let regex) = ProcessMatcher.compile(text) else { return nil }
            return ProcessMatcher(patterns: [.commRegex(regex)])
        case .commandRegex(let text):
            guard case .success(let regex) = ProcessMatcher.compile(text) else { return nil }
            return ProcessMatcher(patterns: [.commandRegex(regex)])
        case .cgroup, .unit, .pidFile:
            return nil
        }
    }

    private func protection(_ stat: ProcessStat) -> Protection? {
        // Root may pause anyone's work: the owner is read only when it matters.
        let uid = safety.isRoot ? safety.uid : procfs.status(stat.pid)?.realUID
        return safety.protection(pid: stat.pid, ppid: stat.ppid, isKernelThread: stat.isKernelThread, uid: uid)
    }

    private func cgroupProtection(_ path: String) -> Protection? {
        safety.protection(cgroup: path, owner: FileSystem.owner(of: freezer.directory(path)))
    }

    /// The cgroups named by a unit, from the cgroups processes are in.
    private func unitCgroups(_ unit: String, _ processes: [Candidate]) -> [String] {
        var found: [String] = []
        for candidate in processes {
            guard let path = procfs.cgroup(candidate.stat.pid) else { continue }
            let components = path.split(separator: "/")
            guard let index = components.firstIndex(where: { $0 == unit }) else { continue }
            let cgroup = CgroupPath(components: components[...index].map(String.init)).description
            if !found.contains(cgroup) { found.append(cgroup) }
        }
        return found.sorted()
    }

    private enum PidFileResult {
        case success(ProcessStat?)
        case failure(String)
    }

    private func pidFileProcess(_ path: String) -> PidFileResult {
        let text: String
        do {
            text = try FileSystem.readText(path)
        } catch {
            // No file: the daemon is not running, nothing to pause.
            if error.errno == .noEntry { return .success(nil) }
            return .failure("cannot read: \(error)")
        }
        let first = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let word = first.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first.map(String.init) ?? ""
        guard let pid = Int32(word), pid > 0 else {
            return .failure("expected a PID on the first line, found \"\(word.prefix(40))\"")
        }
        guard let stat = try? procfs.stat(pid), stat.state != .zombie else { return .success(nil) }
        return .success(stat)
    }
}
