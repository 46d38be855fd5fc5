import JouleHardware

/// A position source as the engines drive it: a receiver they turn on and off, and read fixes
/// from while it is on. Replay and fixed sources run on virtual time (their records' own
/// clock), so an engine never sleeps: it asks for the next fix, or for the next one before a
/// deadline, and the receiver skips what happened while it was off. Live sources (gpsd,
/// GeoClue) run on the wall clock: `next(before:)` waits for the fix or the deadline, and
/// `sleep(until:)` waits with the receiver off. That is why every step is `async`.
public protocol LocationReceiver {
    /// How errors and the summary name the source: `replay:FILE`, `fixed:LAT,LON`.
    var name: String { get }
    /// The clock's first instant, where a session starts; nil when the source has nothing.
    var startTime: Int64? { get }
    /// The clock's last instant (a replay's last record), once nothing more will come.
    var endTime: Int64? { get }
    /// Turns the receiver on at `time`: the first fix delivered is the first at or after
    /// `time` + TTFF.
    mutating func turnOn(at time: Int64) async
    /// Turns the receiver off at `time`: what comes while it is off is skipped.
    mutating func turnOff(at time: Int64) async
    /// The receiver stays off until `time`: what comes before it is skipped.
    mutating func sleep(until time: Int64) async
    /// The next fix while on, `.deadline` if the next one would come at or after `deadline`
    /// (it stays unread), `.end` when the input is over (or a live session was told to stop).
    mutating func next(before deadline: Int64?) async -> ReceiverRead
    /// Asks the source for fixes as accurate as `metres` from now on (a live source picks the
    /// coarsest mode that meets it, e.g. GeoClue's level); recorded sources ignore it.
    mutating func requestAccuracy(_ metres: Double) async
    /// Why the source ended for good (GeoClue refused joule), if it did: the error to report
    /// instead of "no fix".
    var failure: LocationError? { get }
    /// Ends a live session for good (GeoClue's client deleted); after the engine is done.
    func close() async
}

extension LocationReceiver {
    public mutating func requestAccuracy(_ metres: Double) async {}
    public var failure: LocationError? { nil }
    public func close() async {}
}

public enum ReceiverRead: Sendable, Equatable {
    case fix(LocationFix)
    case deadline
    case end
    /// A live source failed and is being retried (gpsd went away, GeoClue lost its name): the
    /// engine reports it as an `error` event and reads on.
    case trouble(message: String, timeMicros: Int64)
}

/// Why a location session could not run or ended without an answer.
public enum LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The replay file could not be read (the user named it).
    case unreadable(path: String, reason: String)
    /// A line of the replay is not a gpsd report Joule accepts.
    case badRecord(path: String, GPSDReportError)
    /// A record's time is before the one that came before it.
    case timeWentBackwards(path: String, line: Int, previousLine: Int)
    /// The source gave no fix at all.
    case noFix(source: String)
    /// A live source did not answer (gpsd not listening, GeoClue not on the bus): the message
    /// names it, its address and what it said; for `auto`, every source tried.
    case unavailable(message: String)
    /// A live source could not be used (GeoClue not on the bus, or refusing joule): `reason`
    /// names the source and the fix.
    case sourceFailed(source: String, reason: String)

    /// Whether the user's input is at fault (exit 2) rather than the system (exit 1).
    public var isInputError: Bool {
        switch self {
        case .unreadable, .badRecord, .timeWentBackwards: true
        case .noFix, .unavailable, .sourceFailed: false
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read replay \(path): \(reason)"
        case .badRecord(let path, let error): "\(path): \(error)"
        case .timeWentBackwards(let path, let line, let previousLine):
            "\(path): line \(line): time: goes backwards (before line \(previousLine)'s)"
        case .noFix(let source): "no fix from \(source)"
        case .sourceFailed(_, let reason): reason
        case .unavailable(let message): message
        }
    }
}

/// The fixes of a recorded gpsd stream, in order, each with its line number. Other classes and
/// TPVs without a fix (mode 0 or 1) are skipped; anything else wrong is an error naming the
/// line and key, and so is a time earlier than the previous fix's.
public struct ReplayTrack: Sendable {
    public struct Record: Sendable, Hashable {
        public var line: Int
        public var fix: LocationFix
    }

    public let path: String
    public let records: [Record]
    /// TPV lines skipped because gpsd had no fix then.
    public let noFixLines: Int

    public init(text: String, path: String) throws(LocationError) {
        var records: [Record] = []
        var noFix = 0
        var number = 0
        // Split on bytes: as Characters, "\r\n" is one grapheme and would not split at "\n".
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let trimmed = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            if trimmed.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            let fix: LocationFix?
            do throws(GPSDReportError) {
                fix = try GPSDReport.decode(line: String(decoding: trimmed, as: UTF8.self), lineNumber: number, source: "replay")
            } catch {
                if error.kind == .noFix {
                    noFix += 1
                    continue
                }
                throw .badRecord(path: path, error)
            }
            guard let fix else { continue }
            if let previous = records.last, fix.timeMicros < previous.fix.timeMicros {
                throw .timeWentBackwards(path: path, line: number, previousLine: previous.line)
            }
            records.append(Record(line: number, fix: fix))
        }
        self.path = path
        self.records = records
        noFixLines = noFix
    }

    /// The file at `path` (at most 256 MiB).
    public static func read(path: String) throws(LocationError) -> ReplayTrack {
        let bytes: [UInt8]
        do throws(HardwareError) { bytes = try FileSystem.readBytes(path, limit: 256 << 20) } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        return try ReplayTrack(text: String(decoding: bytes, as: UTF8.self), path: path)
    }
}

/// A replay under Joule's receiver model, on the records' own time: while the receiver is off
/// records are skipped, turning it on at t delivers the first record at or after t + TTFF, a
/// sleep until t skips to the first record at or after t.
public struct ReplayReceiver: LocationReceiver, Sendable {
    public let track: ReplayTrack
    public let ttffMicros: Int64
    public private(set) var isOn = false
    /// Index of the next record.
    private var index = 0
    /// While on: nothing before this instant is delivered (turn-on time + TTFF).
    private var deliverFrom: Int64 = .min
    /// Records passed over: while off, or before the TTFF was up.
    public private(set) var skipped = 0

    public init(track: ReplayTrack, ttffMicros: Int64 = 0) {
        self.track = track
        self.ttffMicros = ttffMicros
    }

    public var name: String { "replay:\(track.path)" }
    public var startTime: Int64? { track.records.first?.fix.timeMicros }
    public var endTime: Int64? { track.records.last?.fix.timeMicros }

    public mutating func turnOn(at time: Int64) async {
        isOn = true
        deliverFrom = time + ttffMicros
    }

    public mutating func turnOff(at time: Int64) async {
        isOn = false
        skip(before: time)
    }

    public mutating func sleep(until time: Int64) async {
        isOn = false
        skip(before: time)
    }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        if !isOn {
            // Off: nothing arrives. The engine decides what the clock does next.
            return index < track.records.count ? .deadline : .end
        }
        skip(before: deliverFrom)
        guard index < track.records.count else { return .end }
        let fix = track.records[index].fix
        if let deadline, fix.timeMicros >= deadline { return .deadline }
        index += 1
        return .fix(fix)
    }

    private mutating func skip(before time: Int64) {
        while index < track.records.count, track.records[index].fix.timeMicros < time {
            index += 1
            skipped += 1
        }
    }
}

/// `fixed:LAT,LON[,ACCURACY]`: a receiver that gives one fix, TTFF after it is turned on, and
/// then ends. Its clock starts at `now` (the wall clock, for the CLI).
public struct FixedReceiver: LocationReceiver, Sendable {
    public let latitude: Double
    public let longitude: Double
    public let accuracyM: Double?
    public let ttffMicros: Int64
    private let now: Int64
    private var fixTime: Int64?
    private var delivered = false

    public init(latitude: Double, longitude: Double, accuracyM: Double?, now: Int64, ttffMicros: Int64 = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyM = accuracyM
        self.now = now
        self.ttffMicros = ttffMicros
    }

    public var name: String { "fixed:\(latitude),\(longitude)" + (accuracyM.map { ",\($0)" } ?? "") }
    public var startTime: Int64? { now }
    public var endTime: Int64? { delivered ? fixTime : nil }

    public mutating func turnOn(at time: Int64) async {
        if !delivered { fixTime = time + ttffMicros }
    }

    public mutating func turnOff(at time: Int64) async {
        if !delivered, let fixTime, fixTime < time { self.fixTime = nil }
    }

    public mutating func sleep(until time: Int64) async { await turnOff(at: time) }

    public mutating func next(before deadline: Int64?) async -> ReceiverRead {
        guard !delivered, let time = fixTime else { return .end }
        if let deadline, time >= deadline { return .deadline }
        delivered = true
        return .fix(
            LocationFix(timeMicros: time, latitude: latitude, longitude: longitude, horizontalAccuracyM: accuracyM, source: "fixed"))
    }
}
