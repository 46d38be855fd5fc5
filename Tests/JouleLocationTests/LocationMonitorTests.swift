import JouleHardware
import JouleLocation
import JouleWire
import Testing

/// Region monitoring on generated tracks: states, entries and exits with hysteresis, fixes too
/// coarse to decide, and adaptive sampling's receiver times, each exact on virtual time.
@Suite struct LocationMonitorTests {
    static func seconds(_ micros: Int64) -> Double { Double(micros - TrackBuilder.t0) / 1e6 }

    /// A region `northM` north and `eastM` east of the track's origin.
    static func region(_ name: String, northM: Double, eastM: Double = 0, radiusM: Double) -> CircularRegion {
        let centre = Geodesy.offset(latitude: TrackBuilder.origin.latitude, longitude: TrackBuilder.origin.longitude, northM: northM, eastM: eastM)
        return CircularRegion(name: name, latitude: centre.latitude, longitude: centre.longitude, radiusM: radiusM)
    }

    /// Each event as a word and its time in seconds after t0 (receiver turns, region events).
    static func timeline(_ events: [LocationEvent]) -> [String] {
        func t(_ micros: Int64) -> String {
            let s = seconds(micros)
            return s == s.rounded() ? String(Int(s)) : String(s)
        }
        return events.compactMap { event in
            switch event {
            case .receiver(let on, let time): "\(on ? "on" : "off") \(t(time))"
            case .regionState(let region, let inside, let fix): "\(region) \(inside ? "inside" : "outside") \(t(fix.timeMicros))"
            case .regionEnter(let region, let fix): "enter \(region) \(t(fix.timeMicros))"
            case .regionExit(let region, let fix): "exit \(region) \(t(fix.timeMicros))"
            default: nil
            }
        }
    }

    /// North at 10 m/s for 200 s through a 100 m region centred 1 km north (eph 10, max-speed
    /// 20 m/s). Each off time is (d − 10) / 20 s from the fix, at least 5 s: 44.5 s from 0 (d =
    /// 900), 22 from 45 (450), 11 from 67, 5.5 from 78, then 5 s samples while near the edge.
    /// The device crosses in at 90 s and out at 110 s; the samples see it at 94 (60 m from the
    /// centre) and at 114 (140 m: beyond 100 + max(20, 10)).
    @Test func entersAndExitsWithTheReceiverOffBetweenSamples() async throws {
        var track = TrackBuilder()
        for t in 0...200 { track.fix(at: Double(t), northM: Double(t) * 10, eph: 10) }
        var receiver = try track.receiver()
        let log = EventLog()
        let request = MonitorRequest(regions: [Self.region("cafe", northM: 1000, radiusM: 100)], sampling: SamplingRequest(maxSpeedMps: 20))
        let summary = await LocationMonitor.run(request, receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == [
            "on 0", "cafe outside 0", "off 0", "on 44.5", "off 45", "on 67", "off 67", "on 78", "off 78", "on 83.5", "off 84",
            "on 89", "off 89", "on 94", "enter cafe 94", "off 94", "on 99", "off 99", "on 104", "off 104", "on 109", "off 109",
            "on 114", "exit cafe 114", "off 114", "on 119", "off 119", "on 124", "off 124", "on 130.5", "off 131", "on 141",
            "off 141", "on 156", "off 156", "on 178.5", "off 179",
        ])
        // Half a second at 44.5, 83.5, 130.5 and 178.5 s (the first record after the wake); 17 fixes of 201.
        #expect(summary == LocationSummary(receiverOnMicros: 2_000_000, spanMicros: 200_000_000, fixes: 17))
        // Never early: the crossing in is at 90 s, the crossing out at 110 s (112 with the margin).
        let enter = try #require(log.events.first { if case .regionEnter = $0 { true } else { false } })
        #expect(enter.jsonObject["fix"].flatMap { if case .object(let fix) = $0 { fix["time"] } else { nil } } == .string("2024-05-01T12:01:34Z"))
    }

    /// One fix every 10 s around a 100 m region at the origin (eph 10, so outside is beyond
    /// 120 m): 50 m decides inside; 110 and 118 m are in the margin and leave it inside; 125 m
    /// exits; 105 m is in the margin and leaves it outside; 95 m enters; 300 m at eph 150
    /// (coarser than the radius) decides nothing, and being coarser than asked keeps the
    /// receiver on to the next fix; 90 m is inside, as it was.
    @Test func hysteresisAndFixesTooCoarseToDecide() async throws {
        var track = TrackBuilder()
        for (i, (north, eph)) in [(50.0, 10.0), (110, 10), (118, 10), (125, 10), (105, 10), (95, 10), (300, 150), (90, 10)].enumerated() {
            track.fix(at: Double(i * 10), northM: north, eph: eph)
        }
        var receiver = try track.receiver()
        let log = EventLog()
        let summary = await LocationMonitor.run(MonitorRequest(regions: [Self.region("home", northM: 0, radiusM: 100)]), receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == [
            "on 0", "home inside 0", "off 0", "on 5", "off 10", "on 15", "off 20", "on 25", "exit home 30", "off 30", "on 35",
            "off 40", "on 45", "enter home 50", "off 50", "on 55", "off 70",
        ])
        // Every off is the 5 s minimum (all within 25 m of the edge); 5 s on per sample, 15 s for the coarse one.
        #expect(summary == LocationSummary(receiverOnMicros: 40_000_000, spanMicros: 70_000_000, fixes: 8))
    }

    @Test func aFixCoarserThanTheRadiusNeverDecidesAState() async throws {
        var track = TrackBuilder()
        // 2 km from a 100 m region, but ±150 m: nothing is known about the region.
        for t in 0...20 { track.fix(at: Double(t), northM: 2000, eph: 150) }
        var receiver = try track.receiver()
        let log = EventLog()
        await LocationMonitor.run(MonitorRequest(regions: [Self.region("home", northM: 0, radiusM: 100)], sampling: SamplingRequest(accuracyM: 200)), receiver: &receiver, emit: log.emit)
        #expect(!log.events.contains { if case .regionState = $0 { true } else { false } })
    }

    /// Fixes coarser than asked: the sample waits 30 s from the receiver going on, then ends
    /// with the most accurate (the first of equals) and sleeps what is left of its time:
    /// (5000 − 500 − 150) / 30 = 145 s from 0, so on again at 145 s, past the input.
    @Test func aSampleWithoutAnAccurateFixEndsAtTheSettleTime() async throws {
        var track = TrackBuilder()
        for t in 0...100 { track.fix(at: Double(t), eph: t == 0 ? 150 : 160) }
        var receiver = try track.receiver()
        let log = EventLog()
        let summary = await LocationMonitor.run(
            MonitorRequest(regions: [Self.region("far", northM: 5000, radiusM: 500)]), receiver: &receiver, emit: log.emit)
        #expect(Self.timeline(log.events) == ["on 0", "far outside 0", "off 30"])
        #expect(summary == LocationSummary(receiverOnMicros: 30_000_000, spanMicros: 100_000_000, fixes: 30))
    }

    /// The receiver's on-time from its turns.
    static func onMicros(_ turns: [(Bool, Int64)]) -> Int64 {
        stride(from: 0, to: turns.count - 1, by: 2).reduce(0) { $0 + turns[$1 + 1].1 - turns[$1].1 }
    }

    /// The issue's example: two regions 5 km away (one north, one east, 300 m each) during a
    /// 30-minute walk north at 1.4 m/s, one fix a second at eph 8, with a 3 s TTFF. Each wake
    /// is followed by a fix at the first whole second 3 s later, and the office's boundary
    /// nears (4700 − 1.4 t m): the receiver goes off for (4692 − 1.4 t) / 30 s, 156 s at first,
    /// 82 s at the end: 16 samples of 3 to 4 s.
    @Test func twoRegionsFiveKilometresAwayDuringAWalk() async throws {
        var track = TrackBuilder()
        for t in 0...1800 { track.fix(at: Double(t), northM: Double(t) * 1.4, eph: 8) }
        var receiver = try track.receiver(ttff: 3)
        let log = EventLog()
        let regions = [Self.region("office", northM: 5000, radiusM: 300), Self.region("gym", northM: 0, eastM: 5000, radiusM: 300)]
        let summary = try #require(await LocationMonitor.run(MonitorRequest(regions: regions), receiver: &receiver, emit: log.emit))
        // No crossing reported (the walk ends 2.2 km short of either), both decided outside at the first fix.
        #expect(Self.timeline(log.events).filter { !$0.hasPrefix("on ") && !$0.hasPrefix("off ") } == ["office outside 3", "gym outside 3"])
        #expect(Array(Self.timeline(log.events).prefix(8)) == [
            "on 0", "office outside 3", "gym outside 3", "off 3", "on 159.26", "off 163", "on 311.793", "off 315",
        ])
        #expect(summary.spanMicros == 1_800_000_000 && summary.fixes == 16)
        #expect(log.receiverTurns.filter(\.0).count == 16)
        #expect(summary.receiverOnMicros == Self.onMicros(log.receiverTurns))
        #expect(summary.receiverOnMicros < 1_800_000_000 / 10, "on \(summary.receiverOnMicros) of \(summary.spanMicros)")
        #expect(summary.receiverOnMicros > 48_000_000 && summary.receiverOnMicros < 64_000_000)  // 3…4 s each
        #expect(summary.receiverOnMicros == 54_289_000)  // 3.0 % of the span
    }

    /// The same two regions by bicycle (8 m/s north for 30 min): the office (300 m around
    /// 5000 m) is entered at 587.5 s (4700 m) and left at 662.5 s (5300 m; outside beyond
    /// 5320 m, 665 s). Each crossing is reported at a sample after it, never before, and within
    /// one minimum sleep, the TTFF and a second.
    @Test func aCrossingIsNeverReportedEarlyNorMuchLate() async throws {
        var track = TrackBuilder()
        for t in 0...1800 { track.fix(at: Double(t), northM: Double(t) * 8, eph: 8) }
        var receiver = try track.receiver(ttff: 3)
        let log = EventLog()
        let regions = [Self.region("office", northM: 5000, radiusM: 300), Self.region("gym", northM: 0, eastM: 5000, radiusM: 300)]
        let summary = try #require(await LocationMonitor.run(MonitorRequest(regions: regions), receiver: &receiver, emit: log.emit))
        let crossings = Self.timeline(log.events).filter { $0.hasPrefix("enter") || $0.hasPrefix("exit") }
        #expect(crossings == ["enter office 589", "exit office 670"])
        let enter = try #require(crossings.first.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } })
        let exit = try #require(crossings.last.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } })
        #expect(enter >= 587.5 && enter <= 587.5 + 5 + 3 + 1)
        #expect(exit >= 665 && exit <= 665 + 5 + 3 + 1)
        // The receiver is on for the TTFF of each sample: dense near the office, sparse elsewhere.
        #expect(summary.receiverOnMicros == Self.onMicros(log.receiverTurns))
        #expect(Double(summary.receiverOnMicros) / Double(summary.spanMicros) < 0.10, "\(summary)")
    }

    @Test func offTimes() async {
        let sampling = SamplingRequest(accuracyM: 100, maxSpeedMps: 30)
        let fix = LocationFix(timeMicros: 1_000_000, latitude: 0, longitude: 0, horizontalAccuracyM: 10, source: "t")
        #expect(sampling.offMicros(after: fix, boundaryM: 310, offAt: 1_000_000) == 10_000_000)
        // Counted from the fix: 4 s already passed.
        #expect(sampling.offMicros(after: fix, boundaryM: 610, offAt: 5_000_000) == 16_000_000)
        #expect(sampling.offMicros(after: fix, boundaryM: 50, offAt: 1_000_000) == 5_000_000)  // at least 5 s
        #expect(sampling.offMicros(after: fix, boundaryM: 5, offAt: 1_000_000) == 5_000_000)  // within the accuracy
        #expect(sampling.offMicros(after: fix, boundaryM: 100_000, offAt: 1_000_000) == 900_000_000)  // at most 15 min
        #expect(sampling.offMicros(after: fix, boundaryM: .infinity, offAt: 1_000_000) == 900_000_000)
        var unknown = fix
        unknown.horizontalAccuracyM = nil
        #expect(sampling.offMicros(after: unknown, boundaryM: 100_000, offAt: 1_000_000) == 5_000_000)
    }

    @Test func regionJSONAndHooks() async {
        let fix = LocationFix(timeMicros: TrackBuilder.t0, latitude: 52.5, longitude: 13.25, horizontalAccuracyM: 5, source: "replay")
        #expect(LocationEvent.regionState(region: "home", inside: true, fix: fix).json == #"{"event":"regionState","region":"home","state":"inside"}"#)
        #expect(LocationEvent.regionState(region: "home", inside: false, fix: fix).json == #"{"event":"regionState","region":"home","state":"outside"}"#)
        #expect(LocationEvent.regionEnter(region: "home", fix: fix).json.hasPrefix(#"{"event":"regionEnter","region":"home","fix":{"time":"2024-05-01T12:00:00Z","latitude":52.5,"#))
        #expect(LocationEvent.regionExit(region: "home", fix: fix).jsonObject.entries.map(\.0) == ["event", "region", "fix"])
        #expect(LocationEvent.regionExit(region: "home", fix: fix).hookEnvironment?.variables == [
            "JOULE_EVENT": "exit", "JOULE_REGION": "home", "JOULE_LATITUDE": "52.5", "JOULE_LONGITUDE": "13.25",
            "JOULE_TIMESTAMP": "2024-05-01T12:00:00Z",
        ])
        #expect(LocationEvent.regionEnter(region: "a b", fix: fix).hookEnvironment?.variables["JOULE_EVENT"] == "enter")
        #expect(LocationEvent.regionState(region: "home", inside: true, fix: fix).hookEnvironment == nil)
    }
}

/// `--region NAME=LAT,LON,RADIUS_M`: what is accepted, and a clear error for what is not.
@Suite struct CircularRegionSpecTests {
    @Test func goodSpecs() async throws {
        #expect(try CircularRegion(spec: "home=52.52,13.405,150") == CircularRegion(name: "home", latitude: 52.52, longitude: 13.405, radiusM: 150))
        #expect(try CircularRegion(spec: "the office=-33.9, 151.2, 0.5").name == "the office")
        #expect(try CircularRegion(spec: "pole=90,-180,20015087").radiusM == 20_015_087)
        #expect(try CircularRegion.parse(["a=1,2,3", "b=1,2,3"]).map(\.name) == ["a", "b"])
    }

    @Test(arguments: [
        ("52.52,13.405,150", "no NAME= before the numbers"), ("=52.52,13.405,150", "empty name"), (" =1,2,3", "empty name"),
        ("home=52.52,13.405", "2 numbers after the name, not 3"), ("home=1,2,3,4", "4 numbers after the name, not 3"),
        ("home=", "1 number after the name, not 3"),
        ("home=91,0,10", "latitude must be a number in -90...90, not '91'"),
        ("home=nan,0,10", "latitude must be a number in -90...90, not 'nan'"),
        ("home=0,-180.5,10", "longitude must be a number in -180...180, not '-180.5'"),
        ("home=0,east,10", "longitude must be a number in -180...180, not 'east'"),
        ("home=0,0,0", "radius must be a number of metres above 0 (at most 20015087), not '0'"),
        ("home=0,0,-5", "radius must be a number of metres above 0 (at most 20015087), not '-5'"),
        ("home=0,0,inf", "radius must be a number of metres above 0 (at most 20015087), not 'inf'"),
        ("home=0,0,3e7", "radius must be a number of metres above 0 (at most 20015087), not '3e7'"),
        ("home=0,0,", "radius must be a number of metres above 0 (at most 20015087), not ''"),
    ])
    func badSpecsSayWhatIsWrong(spec: String, reason: String) async {
        #expect(throws: CircularRegion.SpecError(spec: spec, reason: reason)) { try CircularRegion(spec: spec) }
        #expect(CircularRegion.SpecError(spec: spec, reason: reason).description
            == "--region \(spec): \(reason) (expected NAME=LAT,LON,RADIUS_M, e.g. home=52.52,13.405,150)")
    }

    @Test func aNameUsedTwice() async {
        #expect(throws: CircularRegion.SpecError(spec: "home=3,4,5", reason: "region name 'home' is used twice")) {
            try CircularRegion.parse(["home=1,2,3", "work=1,2,3", "home=3,4,5"])
        }
        // The first bad spec is the error, even before a duplicate.
        #expect(throws: CircularRegion.SpecError.self) { try CircularRegion.parse(["home=1,2,0", "home=1,2,3"]) }
    }
}
