import Foundation
import JouleWire
import JouleHardware

/// Process control that records what it is asked instead of signalling, and never touches the
/// crash guard tables. Identities are checked against a fixture /proc tree when one is given
/// (as the pidfd controller checks them against /proc); cgroup CPU files are real files of a
/// fixture cgroup tree when one is given, so their failures are the file system's own.
public final class RecordingProcessController: ProcessController {
    public struct Handle: Sendable, Hashable {
        public let identity: ProcessIdentity
    }

    /// One request, in order.
    public enum Call: Sendable, Hashable, CustomStringConvertible {
        case open(Int32), refused(Int32), stop(Int32), resume(Int32), kill(Int32), close(Int32)
        case freeze(String), thaw(String), cpuMax(String, String), enableCPU(String), disableCPU(String)

        public var description: String {
            switch self {
            case .open(let pid): "open \(pid)"
            case .refused(let pid): "open \(pid) refused"
            case .stop(let pid): "SIGSTOP \(pid)"
            case .resume(let pid): "SIGCONT \(pid)"
            case .kill(let pid): "SIGKILL \(pid)"
            case .close(let pid): "close \(pid)"
            case .freeze(let cgroup): "freeze \(cgroup)"
            case .thaw(let cgroup): "thaw \(cgroup)"
            case .cpuMax(let cgroup, let value): "cpu.max \(cgroup) \(value)"
            case .enableCPU(let cgroup): "+cpu \(cgroup)"
            case .disableCPU(let cgroup): "-cpu \(cgroup)"
            }
        }
    }

    public let procfs: ProcFS?
    public let cpu: CgroupCPUControl?
    public let freezer: CgroupFreezer?
    private let journalPath: String?
    private let entries = Locked<[Call]>([])
    private let journalSnapshots = Locked<[String?]>([])

    /// PIDs that have exited: opening them is refused and signals answer false.
    public let gone = Locked<Set<Int32>>([])
    /// PIDs whose signals answer "already exited" though they could be opened.
    public let exited = Locked<Set<Int32>>([])
    /// Cgroups thawed behind the caller's back (a unit restarted): reported thawed once.
    public let thawedElsewhere = Locked<Set<String>>([])
    /// Runs after `+cpu` was written, as the kernel would then create `cpu.max`.
    public let onEnableCPU = Locked<(@Sendable (CgroupPath) -> Void)?>(nil)

    /// - Parameters:
    ///   - procRoot: a fixture root whose proc/ tree confirms identities; nil accepts any.
    ///   - cgroupRoot: a fixture root whose sys/fs/cgroup tree holds cpu.max files; nil has none.
    ///   - journalPath: a file whose text is kept at each stop and freeze.
    public init(procRoot: String? = nil, cgroupRoot: String? = nil, journalPath: String? = nil) {
        procfs = procRoot.map { ProcFS(root: $0) }
        cpu = cgroupRoot.map { CgroupCPUControl(root: $0) }
        freezer = cgroupRoot.map { CgroupFreezer(root: $0) }
        self.journalPath = journalPath
    }

    /// Every request in order.
    public var calls: [Call] { entries.withLock { $0 } }
    /// The requests as text: `open 100`, `SIGSTOP 100`, `cpu.max /a 20000 100000`…
    public var log: [String] { calls.map(\.description) }
    /// The journal's text at each stop and freeze (nil: no journal file).
    public var journalAtPause: [String?] { journalSnapshots.withLock { $0 } }

    private func record(_ call: Call) { entries.withLock { $0.append(call) } }

    private func snapshotJournal() {
        guard let journalPath else { return }
        let text = try? String(contentsOfFile: journalPath, encoding: .utf8)
        journalSnapshots.withLock { $0.append(text) }
    }

    private func isGone(_ pid: Int32) -> Bool { gone.withLock { $0.contains(pid) } }
    private func answersExited(_ pid: Int32) -> Bool { isGone(pid) || exited.withLock { $0.contains(pid) } }

    public func open(_ identity: ProcessIdentity) throws(HardwareError) -> Handle? {
        if isGone(identity.pid) {
            record(.refused(identity.pid))
            return nil
        }
        if let procfs {
            guard let stat = try procfs.stat(identity.pid), stat.startTimeTicks == identity.startTimeTicks else {
                record(.refused(identity.pid))
                return nil
            }
        }
        record(.open(identity.pid))
        return Handle(identity: identity)
    }

    public func stop(_ handle: Handle) throws(HardwareError) -> Bool {
        snapshotJournal()
        if answersExited(handle.identity.pid) { return false }
        record(.stop(handle.identity.pid))
        return true
    }

    public func resume(_ handle: Handle) throws(HardwareError) -> Bool {
        if answersExited(handle.identity.pid) { return false }
        record(.resume(handle.identity.pid))
        return true
    }

    public func kill(_ handle: Handle) throws(HardwareError) -> Bool {
        if answersExited(handle.identity.pid) { return false }
        record(.kill(handle.identity.pid))
        return true
    }

    public func close(_ handle: Handle) { record(.close(handle.identity.pid)) }

    public func freeze(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        snapshotJournal()
        record(.freeze(cgroup))
        return .frozen
    }

    public func thaw(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        record(.thaw(cgroup))
        return .thawed
    }

    public func freezeState(cgroup: String) throws(HardwareError) -> CgroupFreezeState {
        thawedElsewhere.withLock { $0.remove(cgroup) != nil } ? .thawed : .frozen
    }

    private func noCgroupTree(_ operation: String, _ cgroup: CgroupPath) -> HardwareError {
        HardwareError(operation: operation, path: cgroup.description, detail: "no fixture cgroup tree")
    }

    public func readCPUMax(cgroup: CgroupPath) throws(HardwareError) -> String {
        guard let cpu else { throw noCgroupTree("open", cgroup) }
        return try cpu.readCPUMax(cgroup)
    }

    public func writeCPUMax(cgroup: CgroupPath, value: String) throws(HardwareError) {
        record(.cpuMax(cgroup.description, value))
        guard let cpu else { throw noCgroupTree("open", cgroup) }
        try cpu.writeCPUMax(cgroup, value)
    }

    public func cpuControllerEnabled(for cgroup: CgroupPath) -> Bool { cpu?.cpuEnabled(for: cgroup) ?? false }

    public func enableCPUController(for cgroup: CgroupPath) throws(HardwareError) {
        record(.enableCPU(cgroup.parent?.description ?? "/"))
        guard let cpu else { throw noCgroupTree("open", cgroup) }
        try cpu.enableCPU(for: cgroup)
        onEnableCPU.withLock { $0 }?(cgroup)
    }

    public func disableCPUController(for cgroup: CgroupPath) throws(HardwareError) {
        record(.disableCPU(cgroup.parent?.description ?? "/"))
        guard let cpu else { throw noCgroupTree("open", cgroup) }
        try cpu.disableCPU(for: cgroup)
    }

    public func processes(inTree cgroup: CgroupPath) -> [Int32] {
        freezer?.processesInTree(cgroup.description) ?? []
    }
}
