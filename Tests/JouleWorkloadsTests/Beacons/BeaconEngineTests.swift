import Foundation
@testable import JouleHardware
@testable import JouleEnergy
@testable import JouleWorkloads
import JouleTesting
import Testing

/// The beacon engines' loops and the values around them: the scan stream, the recorder,
/// hook environments and UTC text.
@Suite struct BeaconEngineTests {
    static let s = BeaconSessionTests.s

    @Test func scanEmitsEveryAdvertOnceWithTheCapturesOwnTime() async throws {
        let transport = RecordingHCITransport()
        // Before the first plausible timestamp there is no session time, but the advert is shown.
        await transport.feed(HCIEventRecord(timestampMicros: nil, bytes: BeaconSessionTests.eventBytes(minor: 1)))
        await transport.feed(HCIEventRecord(timestampMicros: 2 * Self.s, bytes: BeaconSessionTests.eventBytes(minor: 2)))
        await transport.feed(HCIEventRecord(timestampMicros: 1 * Self.s, bytes: BeaconSessionTests.eventBytes(minor: 3)))
        var runner = BeaconSessionRunner(configuration: .init(mode: .scan), start: nil, commander: ScanCommander(transport: transport))
        var seen: [(Int64?, Int64?)] = []
        try await runner.run { output in
            if case .advert(let advert, let at) = output { seen.append((advert.timestampMicros, at)) }
        }
        #expect(seen.map(\.0) == [nil, 2 * Self.s, 1 * Self.s], "adverts keep the capture's time")
        #expect(seen.map(\.1) == [nil, 2 * Self.s, 2 * Self.s], "session time never steps back")
    }

    @Test func decodeProblemsNameTheRecordAndTheSessionTime() async throws {
        let transport = RecordingHCITransport()
        await transport.feed(HCIEventRecord(timestampMicros: 3 * Self.s, bytes: [0x3E, 0x09, 0x02, 0x01], captureIndex: 7))
        var runner = BeaconSessionRunner(configuration: .init(mode: .scan), start: nil, commander: ScanCommander(transport: transport))
        var problems: [BeaconSessionRunner.DecodeProblem] = []
        runner.warn = { problems.append($0) }
        try await runner.run { _ in }
        #expect(problems.count == 1)
        #expect(problems.first?.captureIndex == 7)
        #expect(problems.first?.sessionTime == 3 * Self.s)
    }

    @Test func cancellingTheTaskEndsTheScanAndTurnsTheRadioOff() async throws {
        let transport = RecordingHCITransport()
        let task = Task {
            var runner = BeaconSessionRunner(configuration: .init(mode: .scan), start: 0, commander: ScanCommander(transport: transport))
            try await runner.run { _ in }
        }
        task.cancel()
        try await task.value
        let commands = await transport.commands
        #expect(commands.last == nil || commands.last == .setScanEnable(false))
    }

    @Test func recorderWritesEventsUntilTheDuration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("joule-recorder-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let transport = RecordingHCITransport()
        let start: Int64 = 1_700_000_000 * Self.s
        await transport.feed(HCIEventRecord(timestampMicros: start, bytes: BeaconSessionTests.eventBytes()))
        await transport.feed(HCIEventRecord(timestampMicros: start + Self.s, bytes: []))  // a clock tick: not written
        await transport.feed(HCIEventRecord(timestampMicros: start + 2 * Self.s, bytes: BeaconSessionTests.eventBytes(minor: 2)))
        await transport.feed(HCIEventRecord(timestampMicros: start + 3 * Self.s, bytes: BeaconSessionTests.eventBytes(minor: 3)))
        let writer = try BTSnoopWriter(path: path)
        let recorder = BeaconRecorder(writer: writer, duration: .seconds(3))
        try await recorder.record(commander: ScanCommander(transport: transport), duty: .ranging, start: start)
        try writer.close()
        #expect(writer.recordCount == 2)
        let commands = await transport.commands
        #expect(commands.first == .setScanParameters(active: false, intervalSlots: 160, windowSlots: 160))
        #expect(commands.last == .setScanEnable(false))
        // Converting the recording gives the same bytes.
        let copy = path + ".copy"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let copyWriter = try BTSnoopWriter(path: copy)
        #expect(try BeaconRecorder(writer: copyWriter).convert(capture: path) == nil)
        try copyWriter.close()
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: path))
    }

    @Test func regionHookEnvironment() throws {
        let region = BeaconRegion(name: "door", uuid: BeaconSessionTests.uuid, major: 7)
        let event = RegionEvent(timestampMicros: 1_700_000_000_250_000, kind: .enter, region: region)
        #expect(event.hookEnvironment.variables == [
            "JOULE_EVENT": "enter", "JOULE_REGION": "door", "JOULE_UUID": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
            "JOULE_MAJOR": "7", "JOULE_MINOR": "", "JOULE_TIMESTAMP": "1700000000.25",
        ])
        #expect(HookEnvironment.upperSnake("warningLevel") == "WARNING_LEVEL")
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (1_700_000_000_250_000, "2023-11-14T22:13:20.25Z"),
        (951_782_400_000_001, "2000-02-29T00:00:00.000001Z"),
        (4_107_542_399_000_000, "2100-02-28T23:59:59Z"),
        (4_107_542_400_000_000, "2100-03-01T00:00:00Z"),
        (BeaconTime.latestMicros - 1, "9999-12-31T23:59:59.999999Z"),
        (-1_000_000, "1969-12-31T23:59:59Z"),
    ])
    func utcText(_ micros: Int64, _ text: String) {
        #expect(UTCTime.text(micros) == text)
    }

    @Test func distanceCoefficientsParse() throws {
        #expect(try DistanceModel(spec: "1,2,3") == DistanceModel(a: 1, b: 2, c: 3))
        #expect(throws: DistanceModel.SpecError.self) { try DistanceModel(spec: "1,2") }
        #expect(throws: DistanceModel.SpecError.self) { try DistanceModel(spec: "1,2,inf") }
    }
}
