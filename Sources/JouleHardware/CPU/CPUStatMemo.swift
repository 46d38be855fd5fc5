/// The last aggregate `/proc/stat` line a `joule status` read, with the monotonic time it was
/// read, kept in the runtime directory: the next status reports usage since it instead of
/// sleeping between two samples of its own.
///
/// A cache, not a record: a missing, foreign or damaged file is read as no memo (and then
/// overwritten), since the worst outcome is one status taking the short-sample path.
public struct CPUStatMemo: Sendable {
    public struct Entry: Sendable, Hashable {
        public var times: CPUTimes
        /// CLOCK_MONOTONIC, which stops in suspend as /proc/stat's ticks do.
        public var monotonicNanoseconds: UInt64
        /// The status that wrote it saw /proc/stat not move where a live kernel's would have.
        public var isStill: Bool

        public init(times: CPUTimes, monotonicNanoseconds: UInt64, isStill: Bool = false) {
            self.times = times
            self.monotonicNanoseconds = monotonicNanoseconds
            self.isStill = isStill
        }
    }

    public let path: String

    public init(path: String) { self.path = path }

    /// The current CLOCK_MONOTONIC reading, for `Entry.monotonicNanoseconds`.
    public static func now() -> UInt64 { Syscalls.monotonicNanoseconds() }

    public func load() -> Entry? {
        guard let bytes = try? FileSystem.readBytes(path, limit: 4096) else { return nil }
        return Self.decode(bytes)
    }

    /// Written atomically and private to the user: another user's status cannot feed it.
    public func save(_ entry: Entry) throws(HardwareError) {
        try AtomicFile.write(Self.encode(entry), to: path, mode: 0o600)
    }

    static let magic = "joule-cpu-stat 2"

    public static func encode(_ entry: Entry) -> String {
        let t = entry.times
        let fields = [
            entry.monotonicNanoseconds, t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal,
            entry.isStill ? 1 : 0,
        ]
        return magic + "\n" + fields.map(String.init).joined(separator: " ") + "\n"
    }

    public static func decode(_ bytes: [UInt8]) -> Entry? {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.count == 2, lines[0] == magic else { return nil }
        let numbers = lines[1].split(separator: " ").compactMap { UInt64($0) }
        guard numbers.count == 10, numbers[9] <= 1 else { return nil }
        let times = CPUTimes(
            user: numbers[1], nice: numbers[2], system: numbers[3], idle: numbers[4], iowait: numbers[5],
            irq: numbers[6], softirq: numbers[7], steal: numbers[8])
        return Entry(times: times, monotonicNanoseconds: numbers[0], isStill: numbers[9] == 1)
    }
}
