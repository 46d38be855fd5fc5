import JouleHardware
import JouleEnergy

/// The daemon's account of every sleep (issue 36): a logind delay lock held while awake, so
/// `PrepareForSleep(true)` leaves time to note the battery's energy, the wakeup sources and
/// the `mem_sleep` mode; the lock released at once after the note (logind then suspends);
/// the note again at `PrepareForSleep(false)`, turned into a `SleepRecord` handed to
/// `accounted` (history, metrics, the flag signal), and the lock taken again.
actor DaemonSleep {
    /// Reads the battery now (not the last poll: the note must be the moment of sleep).
    typealias Battery = @Sendable () async -> CompositeBattery?

    private var account = SleepAccount()
    private let bus: BusConnection?
    private let reader: SleepStateReader
    private let battery: Battery
    private let accounted: @Sendable (SleepRecord) async -> Void
    private let log: @Sendable (String) -> Void
    /// The wall clock: injected by tests, whose sleeps last a moment.
    private let now: @Sendable () -> Double
    private var lock: SleepInhibitor?
    /// The last failure to take the lock, logged once rather than at every resume.
    private var lockProblem: String?
    /// Problems reading the wakeup files already logged.
    private var reported: Set<String> = []

    init(
        bus: BusConnection?, root: FileRoot, battery: @escaping Battery,
        accounted: @escaping @Sendable (SleepRecord) async -> Void, now: @escaping @Sendable () -> Double = WallClock.seconds,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.now = now
        self.bus = bus
        reader = SleepStateReader(root: root)
        self.battery = battery
        self.accounted = accounted
        self.log = log
    }

    /// Whether logind's `PrepareForSleep` is followed (else no sleep is ever accounted, and
    /// the metrics leave the count out rather than show 0).
    private(set) var following = false
    func follow() { following = true }

    /// Sleeps accounted since the daemon started, and the last one.
    var count: Int { account.count }
    var last: SleepRecord? { account.last }
    /// Whether the delay lock is held now (a sleep would wait for the note).
    var holdsLock: Bool { lock?.isHeld ?? false }

    /// Takes the delay lock (at start and after each resume). Without logind the account still
    /// notes what it can when the signals come, but the machine may be asleep before it reads.
    func takeLock() async {
        guard let bus, lock == nil else { return }
        do throws(BusError) {
            lock = try await SleepInhibitor.take(on: bus, who: "joule", why: "note the battery's energy before sleep")
            lockProblem = nil
        } catch {
            let problem = "\(error)"
            if problem != lockProblem {
                log("sleep account: cannot take a delay lock from logind (\(problem)); sleeps are noted without one")
            }
            lockProblem = problem
        }
    }

    /// Releases the lock for good (the daemon is stopping).
    func stop() {
        lock?.release()
        lock = nil
    }

    /// `PrepareForSleep(true)`: note, then let the machine sleep.
    func preparing() async {
        let snapshot = reader.snapshot()
        let (mode, modeProblem) = reader.memSleepMode()
        report(snapshot.problems + [modeProblem].compactMap { $0 })
        let note = SleepAccount.note(time: now(), await battery())
        account.preparing(note, wakeups: snapshot, mode: mode)
        log("going to sleep (\(mode ?? "mode unknown")): battery \(note.energyWh.map { SleepRecord.format($0) + " Wh" } ?? "energy unknown")\(note.percentage.map { ", " + SleepRecord.format($0) + " %" } ?? "")\(lock == nil ? "" : "; releasing the delay lock")")
        lock?.release()
        lock = nil
    }

    /// `PrepareForSleep(false)`: the sleep's record, then the lock again for the next one.
    func resumed() async {
        let after = SleepAccount.note(time: now(), await battery())
        let snapshot = reader.snapshot()
        report(snapshot.problems)
        if let record = account.resumed(after, wakeups: snapshot) {
            log(record.summary)
            await accounted(record)
        } else {
            log("resumed from a sleep the daemon did not see begin: not accounted")
        }
        await takeLock()
    }

    private func report(_ problems: [String]) {
        for problem in problems where reported.insert(problem).inserted {
            log("sleep account: \(problem)")
        }
    }
}
