import JouleHardware

/// Low Power Mode in the desktop session: while it is on, each item's setting takes its
/// low-power value; each original is journalled before the write and restored when Low Power
/// Mode ends, on `stop()`, or by `recover()` at the next start after a crash. A value that no
/// longer reads what joule wrote was changed by the user meanwhile: it is left alone and its
/// entry dropped (the CPU knobs' foreign-write rule). Fed changes; it owns no loop.
public actor LowPowerSession {
    private let items: [LowPowerSessionItem]
    private let journal: SessionJournal
    private let log: @Sendable (String) -> Void
    /// What is written and not yet restored, in order of application; mirrors the journal.
    private var entries: [SessionJournal.Entry] = []
    /// Settings already reported missing: one line each, not one per Low Power Mode change.
    private var reportedMissing: Set<String> = []
    public private(set) var isOn = false

    public init(items: [LowPowerSessionItem], journal: SessionJournal, log: @escaping @Sendable (String) -> Void) {
        self.items = items
        self.journal = journal
        self.log = log
    }

    /// Restores what a previous run left in the journal (it crashed or was killed). Call once,
    /// before the first change.
    public func recover() async {
        do {
            entries = try journal.load()
        } catch {
            log("session: cannot read the journal, nothing restored from it: \(error)")
            return
        }
        if !entries.isEmpty { log("session: restoring \(entries.count) setting(s) a previous run left changed") }
        await restore()
    }

    /// Follows Low Power Mode until `changes` ends.
    public func follow(_ changes: AsyncStream<Bool>) async {
        for await on in changes { await set(lowPowerMode: on) }
    }

    public func set(lowPowerMode on: Bool) async {
        guard on != isOn else { return }
        isOn = on
        if on { await enact() } else { await restore() }
    }

    /// Restores everything, as Low Power Mode ending would; for the agent's exit.
    public func stop() async {
        isOn = false
        await restore()
    }

    /// The journal's entries still held, for tests and status.
    public var held: [SessionJournal.Entry] { entries }

    private func enact() async {
        for item in items where !entries.contains(where: { $0.setting == item.setting.id }) {
            let setting = item.setting
            let current: String?
            do {
                current = try await setting.read()
            } catch {
                report(error)
                continue
            }
            guard let target = item.target(current), target != current else { continue }
            entries.append(SessionJournal.Entry(setting: setting.id, original: current, written: target))
            // Never write what could not be journalled: a crash would lose the original.
            guard save() else {
                entries.removeLast()
                continue
            }
            do {
                try await setting.write(target)
            } catch {
                entries.removeLast()
                _ = save()
                report(error)
            }
        }
    }

    private func restore() async {
        var kept: [SessionJournal.Entry] = []
        for entry in entries.reversed() {
            guard let item = items.first(where: { $0.setting.id == entry.setting }) else {
                log("session: \(entry.setting): not available here, left as it is (was \(entry.original ?? "unset"))")
                continue
            }
            do {
                let current = try await item.setting.read()
                guard current == entry.written else {
                    log("session: \(entry.setting): changed to \(current ?? "unset") since joule wrote \(entry.written); left alone (foreign)")
                    continue
                }
                try await item.setting.write(entry.original)
            } catch {
                report(error)
                // Gone for good (missing) is dropped; a failure may pass, so the next stop or start retries.
                if error.kind == .failed { kept.insert(entry, at: 0) }
            }
        }
        entries = kept
        _ = save()
    }

    private func save() -> Bool {
        do {
            try journal.save(entries)
            return true
        } catch {
            log("session: cannot write the journal \(journal.path), nothing changed: \(error)")
            return false
        }
    }

    private func report(_ error: SessionSettingError) {
        if error.kind == .missing {
            guard reportedMissing.insert(error.setting).inserted else { return }
            log("session: \(error.setting) does not exist here, left alone: \(error.detail)")
        } else {
            log("session: \(error)")
        }
    }
}
