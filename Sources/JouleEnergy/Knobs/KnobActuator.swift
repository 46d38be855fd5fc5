import JouleHardware

/// Carries out a Low Power Mode plan on the machine's own knobs (`ControlFile`s under a root)
/// and undoes it. The planner (`LowPowerKnobs`) decides; this only writes, journals and
/// restores:
/// - before the first write, every knob's original value goes into the `KnobJournal`, with
///   the boot id;
/// - a knob the kernel refuses (EACCES, EBUSY, EINVAL, …) is `failed: …` and the others are
///   still written;
/// - restoring goes in reverse order of application, and puts a knob back only while it
///   still reads what joule wrote; otherwise another tool owns it now and it is `foreign`;
/// - a journal from another boot is stale and is discarded without writes.
///
/// Its owner calls `apply` when Low Power Mode turns on, `restore` when it turns off and on
/// SIGTERM/SIGINT, and `restore` once at start-up, which recovers after a crash on the same
/// boot (`joule daemon --restore` is that call alone). All state is in the journal, so a new
/// actuator over the same directory continues where a dead one stopped.
public struct KnobActuator: Sendable {
    public let root: FileRoot
    public let journal: KnobJournal

    public init(root: FileRoot, journal: KnobJournal) {
        self.root = root
        self.journal = journal
    }

    public init(root: FileRoot, runtimeDirectory: RuntimeDirectory) {
        self.init(root: root, journal: KnobJournal(directory: runtimeDirectory))
    }

    /// The boot the knobs are written in.
    public var bootID: String? { BootID.read(root: root) }

    /// Low Power Mode turned on (`apply(plan)`) or off (`restore()`).
    public func setLowPowerMode(_ on: Bool, plan: @autoclosure () -> [KnobWrite]) throws(HardwareError) -> [KnobOutcome] {
        on ? try apply(plan()) : try restore().outcomes
    }

    /// Writes `plan` in order and returns each knob's outcome, in plan order. A journal left on
    /// this boot is restored first (its foreign and failed knobs lead the outcomes), so the
    /// originals recorded are never joule's own values. Throws, before writing any knob, when
    /// the journal cannot be saved.
    public func apply(_ plan: [KnobWrite]) throws(HardwareError) -> [KnobOutcome] {
        let leftover = try restore().outcomes.filter { $0.state != .restored }
        var outcomes: [KnobOutcome?] = Array(repeating: nil, count: plan.count)
        var entries: [(index: Int, entry: KnobJournal.Entry)] = []
        for (index, write) in plan.enumerated() {
            do {
                let original = try file(write.path).read()
                entries.append((index, KnobJournal.Entry(knob: write.knob, path: write.path, original: original, written: write.value)))
            } catch {
                outcomes[index] = KnobOutcome(
                    knob: write.knob, path: write.path, original: nil, written: write.value, state: .failed(Self.reason(error)))
            }
        }
        let boot = bootID
        try journal.save(KnobJournal.Contents(bootID: boot, entries: entries.map(\.entry)))
        var held: [KnobJournal.Entry] = []
        for (index, entry) in entries {
            var entry = entry
            var state = KnobState.applied
            if entry.original != entry.written {
                let control = file(entry.path)
                do {
                    try control.write(entry.written)
                    // The kernel may round what it was given (a frequency to a step): compare
                    // later against what the file reads now.
                    if let readBack = try? control.read(), !readBack.isEmpty { entry.written = readBack }
                } catch {
                    state = .failed(Self.reason(error))
                }
            }
            if state == .applied { held.append(entry) }
            outcomes[index] = KnobOutcome(
                knob: entry.knob, path: entry.path, original: entry.original, written: entry.written, state: state)
        }
        try journal.save(KnobJournal.Contents(bootID: boot, entries: held))
        return leftover + outcomes.compactMap { $0 }
    }

    /// Puts back what the journal holds, newest first, and returns what became of each knob;
    /// a journal from another boot is discarded without writes. Knobs that failed to restore
    /// stay in the journal for the next call; restored and foreign ones leave it.
    public func restore() throws(HardwareError) -> KnobRecovery {
        guard let contents = try journal.load() else { return .nothing }
        let boot = bootID
        if let recorded = contents.bootID, let boot, recorded != boot {
            try journal.remove()
            return .stale(bootID: recorded)
        }
        var outcomes: [KnobOutcome] = []
        var kept: [KnobJournal.Entry] = []
        for entry in contents.entries.reversed() {
            let state: KnobState
            let control = file(entry.path)
            do {
                let current = try control.read()
                if current == entry.original {
                    state = .restored
                } else if current == entry.written {
                    try control.write(entry.original)
                    state = .restored
                } else {
                    state = .foreign
                }
            } catch {
                state = .failed(Self.reason(error))
                kept.insert(entry, at: 0)
            }
            outcomes.append(KnobOutcome(
                knob: entry.knob, path: entry.path, original: entry.original, written: entry.written, state: state))
        }
        try journal.save(KnobJournal.Contents(bootID: contents.bootID, entries: kept))
        return .restored(outcomes)
    }

    /// What `joule daemon --restore` calls: restores from the journal in `runtimeDirectory`
    /// (this process's own unless given) and returns what it found; the caller reports the
    /// outcomes and exits. Throws when no runtime directory can be formed, or the journal is
    /// unreadable or malformed.
    public static func restoreFromJournal(
        root: FileRoot = .live, runtimeDirectory: RuntimeDirectory? = RuntimeDirectory.current()
    ) throws(HardwareError) -> KnobRecovery {
        guard let runtimeDirectory else {
            throw HardwareError(operation: "restore knobs", path: root.description, detail: RuntimeDirectory.missingMessage)
        }
        return try KnobActuator(root: root, runtimeDirectory: runtimeDirectory).restore()
    }

    private func file(_ path: String) -> ControlFile { ControlFile(root: root, path: path) }

    /// `EACCES`, or the failure's own words when it carries no errno.
    static func reason(_ error: HardwareError) -> String {
        if let errno = error.errno { return errno.name }
        return error.detail ?? error.operation
    }
}
