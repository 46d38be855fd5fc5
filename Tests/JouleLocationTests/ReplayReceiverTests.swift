import JouleHardware
import JouleLocation
import Testing

/// The binding receiver model on replay: the records' time is the clock; while off, records
/// are skipped; on at t delivers the first record at or after t + TTFF; a sleep until t skips
/// to the first record at or after t; time going backwards is an error naming the line.
@Suite struct ReplayReceiverTests {
    func everySecond(_ count: Int) -> TrackBuilder {
        var track = TrackBuilder()
        for i in 0..<count { track.fix(at: Double(i), northM: Double(i)) }
        return track
    }

    func times(_ receiver: inout ReplayReceiver, before deadline: Int64? = nil, max: Int = 100) async -> [Int64] {
        var out: [Int64] = []
        while out.count < max, case .fix(let fix) = await receiver.next(before: deadline) { out.append((fix.timeMicros - TrackBuilder.t0) / 1_000_000) }
        return out
    }

    @Test func otherClassesAndNoFixLinesAreSkipped() async throws {
        var builder = everySecond(3)
        builder.lines.insert(#"{"class":"TPV","mode":1,"time":"2024-05-01T11:59:59Z"}"#, at: 1)
        let track = try builder.track()
        #expect(track.records.count == 3)
        #expect(track.noFixLines == 1)
        // The VERSION line is 1, the no-fix TPV 2, then TPV and SKY alternate.
        #expect(track.records.map(\.line) == [3, 5, 7])
        #expect(track.records.allSatisfy { $0.fix.source == "replay" })
    }

    @Test func ttffDelaysTheFirstFix() async throws {
        var receiver = try everySecond(10).receiver(ttff: 4.5)
        await receiver.turnOn(at: TrackBuilder.t0)
        #expect(await times(&receiver) == [5, 6, 7, 8, 9])
        #expect(receiver.skipped == 5)
    }

    @Test func recordsWhileOffAreSkipped() async throws {
        var receiver = try everySecond(20).receiver()
        #expect(await receiver.next(before: nil) == .deadline)  // off: nothing arrives
        await receiver.turnOn(at: TrackBuilder.t0)
        #expect(await times(&receiver, max: 3) == [0, 1, 2])
        await receiver.turnOff(at: TrackBuilder.micros(2.5))
        #expect(await receiver.next(before: nil) == .deadline)
        await receiver.turnOn(at: TrackBuilder.micros(7))
        #expect(await times(&receiver, max: 2) == [7, 8])
        #expect(receiver.skipped == 4)  // 3, 4, 5, 6
    }

    @Test func aSleepSkipsToTheFirstRecordAtOrAfterItsEnd() async throws {
        var receiver = try everySecond(20).receiver(ttff: 1)
        await receiver.turnOn(at: TrackBuilder.t0)
        #expect(await times(&receiver, max: 1) == [1])
        await receiver.sleep(until: TrackBuilder.micros(12.2))
        await receiver.turnOn(at: TrackBuilder.micros(12.2))
        // TTFF again after the sleep: the first at or after 13.2 s.
        #expect(await times(&receiver, max: 2) == [14, 15])
    }

    @Test func aDeadlineLeavesTheNextRecordUnread() async throws {
        var receiver = try everySecond(10).receiver()
        await receiver.turnOn(at: TrackBuilder.t0)
        #expect(await times(&receiver, before: TrackBuilder.micros(3)) == [0, 1, 2])
        #expect(await receiver.next(before: TrackBuilder.micros(3)) == .deadline)
        #expect(await times(&receiver) == [3, 4, 5, 6, 7, 8, 9])
        #expect(await receiver.next(before: nil) == .end)
        #expect(receiver.endTime == TrackBuilder.micros(9))
    }

    @Test func timeGoingBackwardsNamesTheLine() async {
        var builder = everySecond(3)
        builder.fix(at: 1.5)
        #expect(throws: LocationError.timeWentBackwards(path: "track.ndjson", line: 8, previousLine: 6)) { try builder.track() }
        let message = LocationError.timeWentBackwards(path: "t", line: 8, previousLine: 6).description
        #expect(message == "t: line 8: time: goes backwards (before line 6's)")
    }

    @Test func equalTimesAreNotBackwards() async throws {
        var builder = everySecond(2)
        builder.fix(at: 1)
        #expect(try builder.track().records.count == 3)
    }

    @Test func aBadLineIsAnErrorNamingFileLineAndKey() async {
        var builder = everySecond(2)
        builder.lines.append(#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:09Z","lat":95,"lon":2}"#)
        do {
            _ = try builder.track("walk.ndjson")
            Issue.record("accepted a latitude of 95")
        } catch {
            #expect(error.description == "walk.ndjson: line 6: lat: 95.0 is outside -90...90 degrees")
            #expect(error.isInputError)
        }
    }

    @Test func blankLinesAndCRLFAreAccepted() async throws {
        let builder = everySecond(2)
        let track = try ReplayTrack(text: builder.lines.joined(separator: "\r\n") + "\r\n\r\n", path: "x")
        #expect(track.records.count == 2)
    }

    @Test func aMissingFileIsUnreadable() async {
        #expect(throws: LocationError.self) { try ReplayTrack.read(path: "/nonexistent/joule-track.ndjson") }
        do { _ = try ReplayTrack.read(path: "/nonexistent/joule-track.ndjson") } catch {
            #expect(error.description.hasPrefix("cannot read replay /nonexistent/joule-track.ndjson: "))
        }
    }
}
