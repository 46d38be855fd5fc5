import JouleHardware
import JouleWorkloads

/// What the app supervisor holds frozen or stopped, on disk before it acts (a `PauseJournal`
/// with one class per app, `app:NAME`), so that a supervisor killed with SIGKILL leaves a
/// record: the next `joule run`, `joule app` or daemon start continues and thaws it.
package struct AppPauseLedger: Sendable {
    package static let suffix = ".paused.json"
    package let journal: PauseJournal
    package let owner: ProcessIdentity?
    private var entries: [String: [PauseTarget]] = [:]

    package init(path: String, owner: ProcessIdentity?) {
        journal = PauseJournal(path: path)
        self.owner = owner
    }

    /// Records `targets` as held for `app` (added to what it holds), then saves.
    package mutating func record(_ app: String, _ targets: [PauseTarget]) throws(HardwareError) {
        var held = entries[app] ?? []
        for target in targets where !held.contains(where: { $0.key == target.key }) { held.append(target) }
        entries[app] = held
        try save()
    }

    /// Forgets what `app` held (it was thawed or continued), then saves.
    package mutating func clear(_ app: String) throws(HardwareError) {
        guard entries.removeValue(forKey: app) != nil else { return }
        try save()
    }

    private func save() throws(HardwareError) {
        let list = entries.keys.sorted().flatMap { app in
            (entries[app] ?? []).map { PauseJournal.Entry(target: $0, classes: ["app:" + app]) }
        }
        try journal.save(PauseJournal.Contents(owner: owner, entries: list))
    }

    /// Continues and thaws what every journal in `directory` ending in `suffix` holds whose
    /// owner is no longer alive, and removes those journals. Returns one line per journal
    /// recovered, for the log.
    package static func recoverLeftovers(in directory: String, controller: PidfdProcessController) -> [String] {
        guard let names = try? FileSystem.listDirectory(directory) else { return [] }
        var lines: [String] = []
        for name in names.sorted() where name.hasSuffix(suffix) {
            let path = directory + "/" + name
            let journal = PauseJournal(path: path)
            guard let contents = try? journal.load() else {
                lines.append("\(path): unreadable, left alone")
                continue
            }
            if let owner = contents.owner, isAlive(owner, procfs: controller.procfs) { continue }
            var resumed = 0
            for entry in contents.entries {
                switch entry.target {
                case .process(let identity, _):
                    if (try? controller.resumeLeftover(identity)) == true { resumed += 1 }
                case .cgroup(let cgroup):
                    if (try? controller.thaw(cgroup: cgroup)) == .thawed { resumed += 1 }
                }
            }
            try? journal.remove()
            lines.append("\(path): resumed \(resumed) of \(contents.entries.count) left paused by pid \(contents.owner?.pid ?? 0), which is gone")
        }
        return lines
    }

    static func isAlive(_ identity: ProcessIdentity, procfs: ProcFS) -> Bool {
        guard let stat = (try? procfs.stat(identity.pid)) ?? nil else { return false }
        return stat.startTimeTicks == identity.startTimeTicks && stat.state != .zombie
    }
}
