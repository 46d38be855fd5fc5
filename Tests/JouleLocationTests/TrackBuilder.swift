import JouleEnergy
import JouleHardware
import JouleLocation

/// Generated gpsd streams (`gpspipe -w` lines) for the replay tests: times in seconds after
/// `t0`, positions as metres north and east of a start point.
struct TrackBuilder {
    /// 2024-05-01T12:00:00Z.
    static let t0: Int64 = 1_714_564_800_000_000
    static let origin = (latitude: 48.858_370, longitude: 2.294_481)

    var lines: [String] = [#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#]

    static func micros(_ seconds: Double) -> Int64 { t0 + Int64((seconds * 1_000_000).rounded()) }

    /// A TPV at `seconds` after t0, `northM` metres north of the origin, with accuracy `eph`.
    mutating func fix(at seconds: Double, northM: Double = 0, eastM: Double = 0, eph: Double? = 5, mode: Int = 3) {
        let point = Geodesy.offset(latitude: Self.origin.latitude, longitude: Self.origin.longitude, northM: northM, eastM: eastM)
        var line = #"{"class":"TPV","device":"/dev/ttyACM0","mode":\#(mode),"time":"\#(UTCTime.text(Self.micros(seconds)))","#
        line += #""lat":\#(point.latitude),"lon":\#(point.longitude),"altHAE":40.5,"epv":9.0"#
        if let eph { line += #","eph":\#(eph)"# }
        line += "}"
        lines.append(line)
        lines.append(#"{"class":"SKY","device":"/dev/ttyACM0","satellites":[]}"#)
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    func track(_ path: String = "track.ndjson") throws(LocationError) -> ReplayTrack { try ReplayTrack(text: text, path: path) }

    func receiver(ttff: Double = 0) throws(LocationError) -> ReplayReceiver {
        ReplayReceiver(track: try track(), ttffMicros: Int64(ttff * 1_000_000))
    }
}

/// Events collected from an engine.
final class EventLog {
    var events: [LocationEvent] = []
    func emit(_ event: LocationEvent) { events.append(event) }

    var locations: [(LocationFix, Bool?)] {
        events.compactMap { if case .location(let fix, let met) = $0 { (fix, met) } else { nil } }
    }
    var receiverTurns: [(Bool, Int64)] {
        events.compactMap { if case .receiver(let on, let time) = $0 { (on, time) } else { nil } }
    }
    var summary: LocationSummary? {
        events.compactMap { if case .summary(let s) = $0 { s } else { nil } }.last
    }
}
