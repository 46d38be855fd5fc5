import JouleWire

/// gpsd's JSON reports, one a line, as `gpspipe -w` writes them and gpsd's socket sends them
/// (gpsd_json(5)). Only `TPV` carries a position; every other class (VERSION, DEVICES, WATCH,
/// SKY, PPS, …) is skipped. Pure: a line in, a fix, nothing, or an error naming the line and key.
public enum GPSDReport {
    /// The fix in `line` (line `lineNumber` of its input): nil for a report of another class;
    /// an error for anything that is not a valid TPV with a 2D or 3D fix (`mode` ≥ 2).
    /// The time is required, coordinates must be finite and in range, and a present optional
    /// value that is not a finite number in its range is an error rather than a guess.
    /// On a 2D fix (`mode` 2) the altitude and its accuracy are nil: gpsd's are stale then.
    public static func decode(line: String, lineNumber: Int, source: String = "gpsd") throws(GPSDReportError) -> LocationFix? {
        let value: JSONValue
        do throws(JSONParseError) { value = try JSONParser.parse(line) } catch {
            throw GPSDReportError(line: lineNumber, key: nil, kind: .malformed, message: error.description)
        }
        guard case .object(let object) = value else {
            throw GPSDReportError(line: lineNumber, key: nil, kind: .malformed, message: "expected a JSON object, got \(JSONObjectReader.clip(value))")
        }
        func failure(_ key: String, _ message: String, _ kind: GPSDReportError.Kind = .invalid) -> GPSDReportError {
            GPSDReportError(line: lineNumber, key: key, kind: kind, message: message)
        }
        guard let classValue = object["class"] else { throw failure("class", "missing") }
        guard let reportClass = classValue.stringValue else {
            throw failure("class", "expected a string, got \(JSONObjectReader.clip(classValue))")
        }
        guard reportClass == "TPV" else { return nil }

        guard let modeValue = object["mode"] else { throw failure("mode", "missing") }
        guard let mode = modeValue.intValue, (0...3).contains(mode) else {
            throw failure("mode", "expected 0, 1, 2 or 3, got \(JSONObjectReader.clip(modeValue))")
        }
        guard mode >= 2 else { throw failure("mode", "\(mode): no fix (a fix needs mode 2 or 3)", .noFix) }

        guard let timeValue = object["time"] else { throw failure("time", "missing") }
        let time: Int64
        if let text = timeValue.stringValue {
            guard let micros = ISO8601UTC.micros(text) else {
                throw failure("time", "expected ISO-8601 UTC like 2024-05-01T12:00:00.000Z, got \(JSONObjectReader.clip(timeValue))")
            }
            time = micros
        } else if let seconds = timeValue.doubleValue, seconds.isFinite, seconds >= 0, seconds < 253_402_300_800 {
            // gpsd before protocol 3.10 sent Unix seconds.
            time = Int64((seconds * 1_000_000).rounded())
        } else {
            throw failure("time", "expected ISO-8601 UTC, got \(JSONObjectReader.clip(timeValue))")
        }

        func number(_ key: String, required: Bool, _ range: ClosedRange<Double>, _ what: String) throws(GPSDReportError) -> Double? {
            guard let value = object[key], !(value.isNull && !required) else {
                if required { throw failure(key, "missing") }
                return nil
            }
            guard let number = value.doubleValue, number.isFinite else {
                throw failure(key, "expected a finite number, got \(JSONObjectReader.clip(value))")
            }
            guard range.contains(number) else { throw failure(key, "\(number) is outside \(what)") }
            return number
        }
        let any = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
        let nonNegative = 0...Double.greatestFiniteMagnitude
        let latitude = try number("lat", required: true, -90...90, "-90...90 degrees")!
        let longitude = try number("lon", required: true, -180...180, "-180...180 degrees")!
        let eph = try number("eph", required: false, nonNegative, "0 or more metres")
        let speed = try number("speed", required: false, nonNegative, "0 or more m/s")
        let track = try number("track", required: false, 0...360, "0...360 degrees")
        let altHAE = try number("altHAE", required: false, any, "finite metres")
        let alt = try number("alt", required: false, any, "finite metres")
        let epv = try number("epv", required: false, nonNegative, "0 or more metres")
        let threeD = mode == 3
        return LocationFix(
            timeMicros: time, latitude: latitude, longitude: longitude, horizontalAccuracyM: eph,
            altitudeM: threeD ? altHAE ?? alt : nil, verticalAccuracyM: threeD ? epv : nil, speedMps: speed, courseDeg: track,
            source: source)
    }
}

/// Why a gpsd report line was refused: the line, the key (nil: the line as a whole) and what.
public struct GPSDReportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Not JSON, or not an object.
        case malformed
        /// A TPV whose `mode` is 0 or 1: gpsd had no fix. A stream may skip these.
        case noFix
        /// A key missing or out of range.
        case invalid
    }

    public var line: Int
    public var key: String?
    public var kind: Kind
    public var message: String

    public init(line: Int, key: String?, kind: Kind, message: String) {
        self.line = line
        self.key = key
        self.kind = kind
        self.message = message
    }

    public var description: String { "line \(line): " + (key.map { "\($0): " } ?? "") + message }
}

/// ISO-8601 instants in UTC as gpsd writes them: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`.
public enum ISO8601UTC {
    /// Unix µs for the text (the fraction cut to µs); nil for anything else, including a
    /// field out of its range (month 13, 24:00, 61 seconds).
    public static func micros(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes.last == UInt8(ascii: "Z") else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<from + count {
                let b = bytes[i]
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int64(b - 0x30)
            }
            return value
        }
        func at(_ i: Int, _ c: Character) -> Bool { bytes[i] == c.asciiValue! }
        guard at(4, "-"), at(7, "-"), at(10, "T") || at(10, "t"), at(13, ":"), at(16, ":"),
            let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
            let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int64 = 0
        let rest = bytes.count - 1 - 19
        if rest > 0 {
            guard at(19, "."), rest >= 2 else { return nil }
            var scale: Int64 = 100_000
            for i in 20..<bytes.count - 1 {
                let b = bytes[i]
                guard b >= 0x30, b <= 0x39 else { return nil }
                fraction += Int64(b - 0x30) * scale
                scale /= 10
            }
        }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000) + fraction
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
