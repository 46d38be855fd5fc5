/// The cgroup v2 freezer under `ROOT/sys/fs/cgroup`: writes `cgroup.freeze` and confirms with
/// the `frozen` key of `cgroup.events`. ROOT is "/" live, or a fake tree in tests.
///
/// Cgroup paths are written as /proc/PID/cgroup writes them (`/system.slice/x.service`),
/// relative to the mount.
///
/// Every `cgroup.freeze` it writes `1` to is recorded in the crash guard table first (see
/// `Syscalls.installPauseGuards()`) and forgotten once thawed, so even a crash thaws it.
public struct CgroupFreezer: Sendable {
    public let mount: String

    public init(root: String = "/") {
        mount = FileRoot(root).path("/sys/fs/cgroup")
    }

    /// The directory of `cgroup`.
    public func directory(_ cgroup: String) -> String { CgroupPath(cgroup).directory(mount: mount) }

    public func freezeFile(_ cgroup: String) -> String { directory(cgroup) + "/cgroup.freeze" }
    public func eventsFile(_ cgroup: String) -> String { directory(cgroup) + "/cgroup.events" }

    /// Whether the cgroup exists (its directory does).
    public func exists(_ cgroup: String) -> Bool { Syscalls.kind(of: directory(cgroup)) == .directory }

    /// Writes `1` to `cgroup.freeze`, then reads back the state. Throws when the cgroup has no
    /// freezer (ENOENT: missing, the root cgroup, or cgroup v1) or the write is refused.
    /// Throws without writing when the crash guard has no room left.
    public func freeze(_ cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        let file = freezeFile(cgroup)
        guard Syscalls.markPossiblyFrozen(file) else {
            throw HardwareError(operation: "freeze", path: file, detail: "too many frozen cgroups to guard")
        }
        do {
            try Syscalls.writeControlFile(file, "1\n")
        } catch {
            // Nothing was frozen when the write failed.
            Syscalls.unmarkPossiblyFrozen(file)
            throw error
        }
        // A failed read-back keeps the mark: the cgroup may be frozen.
        return try state(cgroup)
    }

    /// Writes `0` to `cgroup.freeze`, then reads back the state; forgets the crash guard entry
    /// once thawed (or once the cgroup is gone: a removed cgroup needs no thaw).
    public func thaw(_ cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        let file = freezeFile(cgroup)
        do {
            try Syscalls.writeControlFile(file, "0\n")
            let state = try state(cgroup)
            if state == .thawed { Syscalls.unmarkPossiblyFrozen(file) }
            return state
        } catch {
            if !exists(cgroup) { Syscalls.unmarkPossiblyFrozen(file) }
            throw error
        }
    }

    /// The state from `cgroup.freeze` and `cgroup.events`. A `cgroup.events` without a
    /// `frozen` key (kernels before 5.2 never reach here: they have no `cgroup.freeze`) counts
    /// as not yet confirmed.
    public func state(_ cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        let path = freezeFile(cgroup)
        let requested = try Syscalls.readText(path).procTrimmed([" ", "\n"])
        switch requested {
        case "0": return .thawed
        case "1": break
        default: throw HardwareError(operation: "parse", path: path, detail: "expected 0 or 1, found \"\(requested)\"")
        }
        let events = try Syscalls.readText(eventsFile(cgroup))
        return Self.parseFrozen(events) == true ? .frozen : .freezing
    }

    /// The `frozen` key of a `cgroup.events` text (`populated 1\nfrozen 0\n`); nil without one.
    public static func parseFrozen(_ text: String) -> Bool? {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "frozen" {
                switch words[1] {
                case "1": return true
                case "0": return false
                default: return nil
                }
            }
        }
        return nil
    }

    /// The PIDs in `cgroup.procs` of the cgroup itself (not its children); empty when gone.
    public func processes(_ cgroup: String) -> [Int32] {
        guard let text = try? Syscalls.readText(directory(cgroup) + "/cgroup.procs") else { return [] }
        return text.split(separator: "\n").compactMap { Int32($0) }
    }

    /// The immediate child cgroups, as cgroup paths.
    public func children(_ cgroup: String) -> [String] {
        guard let names = try? Syscalls.listDirectory(directory(cgroup)) else { return [] }
        let path = CgroupPath(cgroup)
        return names.sorted().compactMap { name in
            Syscalls.kind(of: directory(cgroup) + "/" + name) == .directory ? path.appending(name).description : nil
        }
    }

    /// The PIDs in `cgroup` and every cgroup below it, read afresh on each call.
    public func processesInTree(_ cgroup: String) -> [Int32] {
        var result: [Int32] = []
        var pending = [cgroup]
        var visited = 0
        while let next = pending.popLast(), visited < 4096 {
            visited += 1
            result += processes(next)
            pending += children(next)
        }
        return result
    }

    /// Writes `1` to `cgroup.kill` (Linux 5.14+): SIGKILL to every process in the subtree at
    /// once, frozen or not, with no race against forks. Throws where there is no such file.
    public func kill(_ cgroup: String) throws(HardwareError) {
        try Syscalls.writeControlFile(directory(cgroup) + "/cgroup.kill", "1\n")
    }

    /// `usage_usec` of the cgroup's `cpu.stat` (present without the cpu controller too), in
    /// nanoseconds; nil when unreadable.
    public func cpuUsageNanoseconds(_ cgroup: String) -> UInt64? {
        guard let text = try? Syscalls.readText(directory(cgroup) + "/cpu.stat") else { return nil }
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 2, words[0] == "usage_usec", let micro = UInt64(words[1]) {
                return micro.multipliedReportingOverflow(by: 1000).overflow ? nil : micro * 1000
            }
        }
        return nil
    }

    /// Creates the cgroup directory (the kernel fills it in); an existing one is kept.
    public func create(_ cgroup: String) throws(HardwareError) { try Syscalls.makeDirectories(directory(cgroup), mode: 0o755) }

    /// Removes the (empty) cgroup directory; a missing one is not an error.
    public func remove(_ cgroup: String) throws(HardwareError) { try Syscalls.removeDirectory(directory(cgroup)) }

    /// Whether `cgroup.procs` of the cgroup can be written by this process: a delegated
    /// subtree, or any cgroup (the root one too) for root.
    public func isWritable(_ cgroup: String) -> Bool { Syscalls.isWritable(directory(cgroup) + "/cgroup.procs") }

    /// Whether this process may freeze the cgroup (write its `cgroup.freeze`).
    public func isFreezable(_ cgroup: String) -> Bool { Syscalls.isWritable(freezeFile(cgroup)) }
}
