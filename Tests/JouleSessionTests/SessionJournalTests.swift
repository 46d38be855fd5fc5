import Foundation
import JouleWire
import JouleHardware
import JouleSession
import Testing

/// The journal's file and what the engine does with a journal it cannot use.
struct SessionJournalTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("joule-journal-\(UUID().uuidString)/session-journal.json").path
    }

    @Test func roundTripsUnsetOriginalsAndRemovesItselfWhenEmpty() throws {
        let journal = SessionJournal(path: temporaryPath())
        defer { try? FileManager.default.removeItem(atPath: (journal.path as NSString).deletingLastPathComponent) }
        let entries = [
            SessionJournal.Entry(setting: "gsettings a b", original: nil, written: "false"),
            SessionJournal.Entry(setting: "backlight x", original: "800", written: "400"),
        ]
        try journal.save(entries)
        #expect(try journal.load() == entries)
        let attributes = try FileManager.default.attributesOfItem(atPath: journal.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        try journal.save([])
        #expect(!FileManager.default.fileExists(atPath: journal.path))
        #expect(try journal.load().isEmpty)
    }

    @Test(arguments: ["not json", #"{"version":2,"settings":[]}"#, #"{"version":1,"settings":[{"setting":"a","original":1,"written":"b"}]}"#])
    func aMalformedJournalIsAnErrorNamingTheFile(text: String) {
        #expect(throws: HardwareError.self) { try SessionJournal.decode(text, path: "/state/session-journal.json") }
    }

    @Test func anEntryForASettingNotConfiguredIsLoggedAndDropped() async throws {
        let journal = SessionJournal(path: temporaryPath())
        defer { try? FileManager.default.removeItem(atPath: (journal.path as NSString).deletingLastPathComponent) }
        try journal.save([SessionJournal.Entry(setting: "kdeglobals /gone [KDE] AnimationDurationFactor", original: "1", written: "0")])
        let log = LogLines()
        let session = LowPowerSession(items: [], journal: journal, log: log.sink)
        await session.recover()
        #expect(log.all == [
            "session: restoring 1 setting(s) a previous run left changed",
            "session: kdeglobals /gone [KDE] AnimationDurationFactor: not available here, left as it is (was 1)",
        ])
        #expect(!FileManager.default.fileExists(atPath: journal.path))
    }
}
