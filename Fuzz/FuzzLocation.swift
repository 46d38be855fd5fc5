import JouleHardware
import JouleLocation

/// gpsd report lines: each through the TPV decoder alone, then the whole input as a replay
/// under the receiver model, with `once` and `watch` (distance filter and deferral) run on it.
/// Beyond not trapping: no decoded fix may be out of range or non-finite, no error may lack
/// its line, the receiver may not be on longer than the session, and auto-pause turns it
/// off and on in turn.
func fuzzTPV(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(64).enumerated() {
        do throws(GPSDReportError) {
            guard let fix = try GPSDReport.decode(line: String(decoding: line, as: UTF8.self), lineNumber: index + 1) else { continue }
            check(fix.latitude.isFinite && abs(fix.latitude) <= 90, "latitude \(fix.latitude)")
            check(fix.longitude.isFinite && abs(fix.longitude) <= 180, "longitude \(fix.longitude)")
            for value in [fix.horizontalAccuracyM, fix.verticalAccuracyM, fix.speedMps] {
                check(value.map { $0.isFinite && $0 >= 0 }, "accuracy or speed \(String(describing: value))")
            }
            check(fix.courseDeg.map { (0...360).contains($0) }, "course \(String(describing: fix.courseDeg))")
            check(fix.altitudeM.map(\.isFinite), "altitude")
            lineBuffer.appendLine(LocationEvent.location(fix, accuracyMet: true).jsonObject)
            lineBuffer.removeAll()
        } catch {
            check(error.line == index + 1, "error line \(error.line) for line \(index + 1)")
            _ = error.description
        }
    }
    guard let track = try? ReplayTrack(text: text, path: "fuzz") else { return }
    for pair in zip(track.records, track.records.dropFirst()) {
        check(pair.0.fix.timeMicros <= pair.1.fix.timeMicros && pair.0.line < pair.1.line, "track order")
    }
    // The engines are async (live sources wait on the wall clock); a replay never suspends
    // for long, so the fuzzer's synchronous callback waits for them on a semaphore.
    let (first, last) = (bytes.first ?? 0, bytes.last ?? 0)
    let failures = FuzzBlocking.run { await replaySessions(track, ttffOnce: first, ttffPause: last) }
    for failure in failures { check(false, failure) }
}

/// `once` and `watch` (distance filter and deferral; auto-pause with give-up) on `track`:
/// the invariants each session broke, as messages.
func replaySessions(_ track: ReplayTrack, ttffOnce: UInt8, ttffPause: UInt8) async -> [String] {
    var failures: [String] = []
    func expect(_ holds: Bool, _ what: String) { if !holds { failures.append(what) } }
    func session(_ summary: LocationSummary?) {
        guard let summary else { return }
        expect(summary.receiverOnMicros >= 0 && summary.receiverOnMicros <= summary.spanMicros, "on-time \(summary)")
        expect(summary.fixes <= track.records.count, "fixes \(summary.fixes)")
    }
    var once = ReplayReceiver(track: track, ttffMicros: Int64(ttffOnce) * 100_000)
    var onceSummary: LocationSummary?
    _ = try? await LocationOnce.run(OnceRequest(accuracyM: 20, timeoutMicros: 10_000_000), receiver: &once) { event in
        if case .summary(let s) = event { onceSummary = s }
    }
    session(onceSummary)
    var watch = ReplayReceiver(track: track)
    var delivered = 0
    session(await LocationWatch.run(WatchRequest(accuracyM: 50, distanceM: 10, deferDistanceM: 100, deferTimeMicros: 30_000_000), receiver: &watch) { event in
        if case .deferred(let fixes, _) = event { delivered += fixes.count }
    })
    expect(delivered <= track.records.count, "delivered \(delivered)")
    // Auto-pause and give-up: the receiver's turns alternate, and a pause or a give-up is
    // followed by the receiver off.
    var paused = ReplayReceiver(track: track, ttffMicros: Int64(ttffPause) * 10_000)
    var turns: [Bool] = []
    var lastWasPause = false
    session(await LocationWatch.run(WatchRequest(
        accuracyM: 20, pauseWhenStationaryMicros: 2_000_000, probeMicros: 5_000_000, giveUpMicros: 3_000_000, retryMicros: 4_000_000), receiver: &paused) { event in
        if lastWasPause { expect(event == .receiver(isOn: false, timeMicros: { if case .receiver(_, let t) = event { t } else { -1 } }()), "off after pause") }
        lastWasPause = switch event {
        case .paused, .gaveUp: true
        default: false
        }
        if case .receiver(let on, _) = event {
            expect(turns.last != on, "receiver turned \(on) twice")
            turns.append(on)
        }
    })
    expect(turns.last != true, "receiver left on")
    return failures
}
