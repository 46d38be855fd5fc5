/// What the kernel says about suspend: the current `mem` sleep mode (`/sys/power/mem_sleep`),
/// the IRQ that last woke the machine (`/sys/power/pm_wakeup_irq`), the suspend statistics
/// (`/sys/power/suspend_stats/*`) and the wakeup sources (`/sys/class/wakeup/wakeupN/`).
/// The decoders are pure; `SleepStateReader` does the file reads under a `FileRoot`.
public enum SleepState {
    /// The mode the kernel uses for `mem` suspend: the bracketed word of `mem_sleep`, as
    /// `s2idle [deep]` → `deep`. nil when no single word is bracketed or the word is not a
    /// mode name (letters, digits, `_`, `-`).
    public static func memSleepMode(_ text: String) -> String? {
        var chosen: String?
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            guard word.hasPrefix("["), word.hasSuffix("]"), word.count > 2 else {
                if word.contains("[") || word.contains("]") || !isModeName(word) { return nil }
                continue
            }
            let name = word.dropFirst().dropLast()
            guard chosen == nil, isModeName(name) else { return nil }
            chosen = String(name)
        }
        return chosen
    }

    private static func isModeName(_ word: Substring) -> Bool {
        !word.isEmpty && word.count <= 32
            && word.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    /// A plain non-negative decimal count (`event_count`, `pm_wakeup_irq`, `suspend_stats/success`);
    /// nil for anything else, never 0 for garbage.
    public static func count(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    /// Which wakeup sources moved between two snapshots, as text for a person: each source
    /// whose `wakeup_count` rose, as `ACPI LID0 (wakeup_count +1)`, joined with `, `; when
    /// none did, the sources whose `event_count` rose (`event_count +N`); failing that the
    /// IRQ the kernel recorded after resume (`irq 9`). nil when nothing tells. A suspend the
    /// kernel counted as failed (`suspend_stats/fail` rose) says so first: the machine never
    /// slept, whatever the drain.
    public static func wakeReason(before: WakeupSnapshot, after: WakeupSnapshot) -> String? {
        let reason = wokeBy(before: before, after: after)
        guard let was = before.suspendStats["fail"], let now = after.suspendStats["fail"], now > was else { return reason }
        return "suspend failed (suspend_stats/fail +\(now - was))" + (reason.map { ", " + $0 } ?? "")
    }

    private static func wokeBy(before: WakeupSnapshot, after: WakeupSnapshot) -> String? {
        func moved(_ count: KeyPath<WakeupSource, UInt64?>, _ label: String) -> [String] {
            after.sources.compactMap { source -> (UInt64, String)? in
                guard let old = before.sources.first(where: { $0.id == source.id && $0.name == source.name }),
                    let was = old[keyPath: count], let now = source[keyPath: count], now > was
                else { return nil }
                return (now - was, "\(source.name) (\(label) +\(now - was))")
            }
            .sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
            .map(\.1)
        }
        let woke = moved(\.wakeupCount, "wakeup_count")
        if !woke.isEmpty { return woke.joined(separator: ", ") }
        let events = moved(\.eventCount, "event_count")
        if !events.isEmpty { return events.joined(separator: ", ") }
        if let irq = after.wakeupIRQ { return "irq \(irq)" }
        return nil
    }
}

/// One `/sys/class/wakeup/wakeupN/` directory: its directory name (`wakeup12`), the source's
/// `name` (`ACPI LID0`, `PNP0C0D:00`) and its counts; a count that could not be read or
/// decoded is nil, never 0.
public struct WakeupSource: Sendable, Hashable {
    public var id: String
    public var name: String
    public var eventCount: UInt64?
    public var wakeupCount: UInt64?

    public init(id: String, name: String, eventCount: UInt64?, wakeupCount: UInt64?) {
        self.id = id
        self.name = name
        self.eventCount = eventCount
        self.wakeupCount = wakeupCount
    }
}

/// The wakeup state at one moment (just before sleep, just after resume).
public struct WakeupSnapshot: Sendable, Hashable {
    /// Sorted by `id`.
    public var sources: [WakeupSource]
    /// `/sys/power/pm_wakeup_irq`: absent until the kernel records an IRQ wakeup.
    public var wakeupIRQ: UInt64?
    /// `/sys/power/suspend_stats/*` counts by file name (`success`, `fail`, `last_failed_dev`
    /// is text and kept out); only the files that decoded.
    public var suspendStats: [String: UInt64]
    /// What could not be read or decoded, each naming the file, as
    /// `/sys/class/wakeup/wakeup3/event_count: not a count: "x"`.
    public var problems: [String]

    public init(sources: [WakeupSource] = [], wakeupIRQ: UInt64? = nil, suspendStats: [String: UInt64] = [:], problems: [String] = []) {
        self.sources = sources
        self.wakeupIRQ = wakeupIRQ
        self.suspendStats = suspendStats
        self.problems = problems
    }
}

/// Reads the files `SleepState` decodes under a root (the live system or a fixture tree).
public struct SleepStateReader: Sendable {
    public static let memSleepPath = "/sys/power/mem_sleep"
    public static let wakeupIRQPath = "/sys/power/pm_wakeup_irq"
    public static let suspendStatsPath = "/sys/power/suspend_stats"
    public static let wakeupClassPath = "/sys/class/wakeup"

    public let root: FileRoot
    private let readFile: @Sendable (String) throws(HardwareError) -> [UInt8]
    private let list: @Sendable (String) throws(HardwareError) -> [String]

    /// `readFile` and `list` are injected by tests to make reads fail.
    public init(
        root: FileRoot = .live,
        readFile: @escaping @Sendable (String) throws(HardwareError) -> [UInt8] = { path throws(HardwareError) in
            try FileSystem.readBytes(path, limit: 4096)
        },
        list: @escaping @Sendable (String) throws(HardwareError) -> [String] = { path throws(HardwareError) in
            try FileSystem.listDirectory(path)
        }
    ) {
        self.root = root
        self.readFile = readFile
        self.list = list
    }

    /// The current `mem` sleep mode (`s2idle`, `deep`, `shallow`); nil with no problem when the
    /// kernel has no `mem_sleep`, nil with a problem naming the file when it could not be read
    /// or held no bracketed mode.
    public func memSleepMode() -> (mode: String?, problem: String?) {
        let file = root.path(Self.memSleepPath)
        switch text(file) {
        case .absent: return (nil, nil)
        case .failed(let problem): return (nil, problem)
        case .text(let text):
            if let mode = SleepState.memSleepMode(text) { return (mode, nil) }
            return (nil, "\(file): no bracketed mode: \"\(Self.shown(text))\"")
        }
    }

    /// The wakeup sources, the last wakeup IRQ and the suspend statistics now. Missing files
    /// are absence; unreadable or undecodable ones leave their value nil and add a problem.
    public func snapshot() -> WakeupSnapshot {
        var snapshot = WakeupSnapshot()
        func count(_ file: String) -> UInt64? {
            switch text(file) {
            case .absent: return nil
            case .failed(let problem):
                snapshot.problems.append(problem)
                return nil
            case .text(let text):
                if let value = SleepState.count(text) { return value }
                snapshot.problems.append("\(file): not a count: \"\(Self.shown(text))\"")
                return nil
            }
        }
        snapshot.wakeupIRQ = count(root.path(Self.wakeupIRQPath))
        let stats = root.path(Self.suspendStatsPath)
        for name in names(stats, &snapshot.problems) where !name.hasPrefix("last_") {
            if let value = count(stats + "/" + name) { snapshot.suspendStats[name] = value }
        }
        let wakeup = root.path(Self.wakeupClassPath)
        for id in names(wakeup, &snapshot.problems) where id.hasPrefix("wakeup") {
            let directory = wakeup + "/" + id
            let name: String
            switch text(directory + "/name") {
            case .text(let text) where !text.isEmpty: name = text
            case .failed(let problem):
                snapshot.problems.append(problem)
                name = id
            default: name = id
            }
            snapshot.sources.append(
                WakeupSource(id: id, name: name, eventCount: count(directory + "/event_count"), wakeupCount: count(directory + "/wakeup_count")))
        }
        snapshot.sources.sort { Self.numericOrder($0.id, $1.id) }
        return snapshot
    }

    private enum Read { case absent, failed(String), text(String) }

    private func text(_ file: String) -> Read {
        do {
            let bytes = try readFile(file)
            return .text(DeviceAttributePolicy.text(bytes: bytes))
        } catch {
            if error.errno == .noEntry || error.errno == .notDirectory { return .absent }
            return .failed("\(file): read failed: \(error.errno.map { "\($0)" } ?? error.detail ?? error.operation)")
        }
    }

    private func names(_ directory: String, _ problems: inout [String]) -> [String] {
        do {
            return try list(directory)
        } catch {
            if error.errno == .noEntry || error.errno == .notDirectory { return [] }
            problems.append("\(directory): list failed: \(error.errno.map { "\($0)" } ?? error.detail ?? error.operation)")
            return []
        }
    }

    private static func shown(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    /// `wakeup2` before `wakeup10`.
    static func numericOrder(_ a: String, _ b: String) -> Bool {
        let x = UInt64(a.drop(while: { !$0.isNumber })), y = UInt64(b.drop(while: { !$0.isNumber }))
        if let x, let y, x != y { return x < y }
        return a < b
    }
}
