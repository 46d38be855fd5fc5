import Foundation
@testable import JouleHardware
@testable import JouleTransferQueue
import JouleTesting
import Testing

@Suite struct TransferStoreTests {
    typealias Scratch = TransferScratch

    static func download(_ destination: String, owner: UInt32 = 1000, id: String = Transfer.newID(), created: Double = 1_700_000_000) -> Transfer {
        TransferScratch.download(destination, owner: owner, id: id, created: created)
    }

    /// Every field set, through every state.
    @Test func everyFieldAndStateRoundTrips() throws {
        let scratch = try Scratch()
        let store = try TransferStore(path: scratch.database)
        var full = Transfer(
            id: "0b5e7f3c-4f6e-4a53-9d0e-6f2b1c9a7e11", ownerUID: 4_000_000_000, url: "https://example.org/a?b=c&d=é",
            method: .get, headers: [TransferHeader(name: "Authorization", value: "Bearer x:y"), TransferHeader(name: "X-A", value: "")],
            destination: "/home/alice/a.iso", requirements: TransferRequirements(discretionary: true, unmeteredOnly: true, requireAC: true),
            priority: .high, batch: "nightly", sha256: String(repeating: "ab", count: 32), onComplete: "notify-send done",
            sessionIdentifier: "org.example.sync", createdAt: 1_700_000_000.25, beginAfter: 1_700_000_600, deadline: 1_700_604_800.5,
            validators: TransferValidators(strongETag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", totalLength: 5_000_000_000),
            durableBytes: 4_294_967_296, attemptsWithoutProgress: 3, lastError: "connection reset",
            state: .waiting(unmet: [.ac, .unmetered, .batch]))
        try store.add(full)
        #expect(try store.get(full.id) == full)
        let states: [TransferState] = [
            .running, .suspended(until: nil), .suspended(until: 1_700_000_030.5), .retrying(next: 1_700_000_060),
            .waiting(unmet: []), .failed(reason: "HTTP 404 Not Found"),
        ]
        for state in states {
            full.state = state
            try store.update(full.id) { $0.state = state }
            #expect(try store.get(full.id) == full)
        }
        let upload = Transfer(
            ownerUID: 1000, url: "https://example.org/up", method: .post, destination: nil, uploadSource: "/tmp/report.tar",
            createdAt: 1, deadline: 2, state: .completed)
        try store.add(upload)
        #expect(try store.get(upload.id) == upload)
    }

    @Test func aSecondLiveTransferToTheSameDestinationIsRefused() throws {
        let scratch = try Scratch()
        let store = try TransferStore(path: scratch.database)
        let first = try store.add(Self.download("/srv/a.iso"))
        #expect(throws: TransferStoreError.destinationInUse(destination: "/srv/a.iso", existingID: first.id)) {
            try store.add(Self.download("/srv/a.iso"))
        }
        // Another destination is fine; once the first finishes, its destination is free again.
        let other = try store.add(Self.download("/srv/b.iso"))
        #expect(throws: TransferStoreError.destinationInUse(destination: "/srv/a.iso", existingID: first.id)) {
            try store.update(other.id) { $0.destination = "/srv/a.iso" }
        }
        try store.cancel(first.id)
        let second = try store.add(Self.download("/srv/a.iso"))
        #expect(try store.list().map(\.id).sorted() == [first.id, other.id, second.id].sorted())
        // The index refuses it even past the store's own check (another writer, a bug).
        #expect(throws: SQLiteError.self) {
            try store.database.execute("UPDATE transfers SET state = 'waiting' WHERE id = ?", [.text(first.id)])
        }
        var upload = Self.download("/srv/d.iso")
        upload.method = .put
        #expect(throws: TransferStoreError.invalid("a PUT uploads a file: it needs an upload source and no destination")) {
            try store.add(upload)
        }
        upload.method = .get
        upload.uploadSource = "/tmp/x"
        #expect(throws: TransferStoreError.invalid("a GET downloads to a destination: it needs one and no upload source")) {
            try store.add(upload)
        }
        #expect(throws: TransferStoreError.invalid("byte counts and attempts cannot be negative")) {
            try store.update(second.id) { $0.durableBytes = -1 }
        }
        #expect(throws: TransferStoreError.invalid("a transfer with this id already exists")) {
            try store.add(Self.download("/srv/c.iso", id: first.id))
        }
    }

    @Test func onlyTheOwnerOrRootSeesATransfer() throws {
        let scratch = try Scratch()
        let store = try TransferStore(path: scratch.database)
        let alice = try store.add(Self.download("/a", owner: 1000, created: 3))
        let bob = try store.add(Self.download("/b", owner: 1001, created: 2))
        #expect(try store.list(visibleTo: 1000).map(\.id) == [alice.id])
        #expect(try store.list(visibleTo: 0).map(\.id) == [bob.id, alice.id])
        #expect(try store.list().count == 2)
        #expect(try store.get(alice.id, visibleTo: 1000) == alice)
        #expect(try store.get(alice.id, visibleTo: 0) == alice)
        #expect(throws: TransferStoreError.notPermitted(id: alice.id, uid: 1001)) { try store.get(alice.id, visibleTo: 1001) }
        #expect(throws: TransferStoreError.notPermitted(id: alice.id, uid: 1001)) { try store.cancel(alice.id, visibleTo: 1001) }
        #expect(throws: TransferStoreError.notPermitted(id: alice.id, uid: 1001)) { try store.delete(alice.id, visibleTo: 1001) }
        #expect(throws: TransferStoreError.notFound(id: "nope")) { try store.get("nope") }
        #expect(try store.cancel(alice.id, visibleTo: 1000).state == .cancelled)
        #expect(throws: TransferStoreError.alreadyFinished(id: alice.id, state: "cancelled")) { try store.cancel(alice.id) }
        try store.delete(alice.id, visibleTo: 0)
        #expect(try store.list().map(\.id) == [bob.id])
    }

    @Test func listsHighPriorityFirstThenOldestAndFilters() throws {
        let scratch = try Scratch()
        let store = try TransferStore(path: scratch.database)
        var low = Self.download("/1", created: 1); low.priority = .low
        var high = Self.download("/2", created: 3); high.priority = .high
        let normalOld = Self.download("/3", created: 2)
        var normalNew = Self.download("/4", created: 4); normalNew.sessionIdentifier = "app"
        var done = Self.download("/5", created: 0); done.state = .completed
        for t in [low, high, normalOld, normalNew, done] { try store.add(t) }
        #expect(try store.list().map(\.destination) == ["/2", "/5", "/3", "/4", "/1"])
        #expect(try store.list(liveOnly: true).map(\.destination) == ["/2", "/3", "/4", "/1"])
        #expect(try store.list(session: "app").map(\.destination) == ["/4"])
    }

    @Test func anUpdateIsOneTransaction() throws {
        let scratch = try Scratch()
        let store = try TransferStore(path: scratch.database)
        let t = try store.add(Self.download("/a"))
        struct Refused: Error, Equatable {}
        #expect(throws: Refused()) {
            try store.update(t.id) {
                $0.durableBytes = 100
                throw Refused()
            }
        }
        #expect(try store.get(t.id).durableBytes == 0)
        #expect(throws: TransferStoreError.invalid("an update cannot change a transfer's id or owner")) {
            try store.update(t.id) { $0.ownerUID = 0 }
        }
        #expect(throws: TransferStoreError.invalid("header \"Bad Name\" cannot be sent as written")) {
            try store.update(t.id) { $0.headers = [TransferHeader(name: "Bad Name", value: "v")] }
        }
        let changed = try store.update(t.id) {
            $0.durableBytes = 1 << 20
            $0.validators.totalLength = 1 << 30
            $0.state = .running
        }
        #expect(try store.get(t.id) == changed)
        try store.update(t.id) { $0.state = .completed }
        #expect(throws: TransferStoreError.alreadyFinished(id: t.id, state: "completed")) {
            try store.update(t.id) { $0.durableBytes = 0 }
        }
    }

    @Test func recoveryTurnsRunningIntoSuspended() throws {
        let scratch = try Scratch()
        let id: String
        do {
            let store = try TransferStore(path: scratch.database)
            var running = Self.download("/a"); running.state = .running; running.durableBytes = 42
            var waiting = Self.download("/b"); waiting.state = .waiting(unmet: [.ac])
            try store.add(running)
            try store.add(waiting)
            id = running.id
        }
        let store = try TransferStore(path: scratch.database)
        let recovered = try store.recoverAfterCrash()
        #expect(recovered.map(\.id) == [id])
        #expect(recovered.first?.durableBytes == 42)
        #expect(try store.get(id).state == .suspended(until: nil))
        #expect(try store.list().filter { $0.state == .running }.isEmpty)
        #expect(try store.recoverAfterCrash().isEmpty)
    }

    @Test func headersParseAndRejectInjection() {
        #expect(TransferHeader(line: "Authorization:  Bearer a:b ") == TransferHeader(name: "Authorization", value: "Bearer a:b"))
        #expect(TransferHeader(line: "X-Empty:") == TransferHeader(name: "X-Empty", value: ""))
        #expect(TransferHeader(line: "no colon") == nil)
        #expect(TransferHeader(line: ": v") == nil)
        #expect(TransferHeader(line: "Bad Name: v") == nil)
        #expect(TransferHeader(line: "X: a\r\nInjected: b") == nil)
    }

    // MARK: schema

    @Test func aNewFileHasTheCurrentSchemaAndReopeningKeepsIt() throws {
        let scratch = try Scratch()
        let t = Self.download("/a")
        do {
            let store = try TransferStore(path: scratch.database)
            #expect(try store.version() == TransferStore.schemaVersion)
            try store.add(t)
        }
        let store = try TransferStore(path: scratch.database)
        #expect(try store.version() == 1)
        #expect(try store.database.query("SELECT count(*) FROM schema_version").first?[0].int64 == 1)
        #expect(try store.get(t.id) == t)
    }

    @Test func aMigrationRunsOnceAndKeepsRows() throws {
        let scratch = try Scratch()
        let t = Self.download("/a")
        try TransferStore(path: scratch.database).add(t)
        let v2 = TransferStore.migrations + ["ALTER TABLE transfers ADD COLUMN note TEXT; UPDATE transfers SET note = 'migrated';"]
        let database = try SQLiteDatabase(path: scratch.database)
        let store = try TransferStore(database: database, migrations: v2)
        #expect(try store.version() == 2)
        #expect(try store.get(t.id) == t)
        #expect(try database.query("SELECT note FROM transfers").first?[0].text == "migrated")
        _ = try TransferStore(database: database, migrations: v2)  // already there: nothing reruns
        #expect(try store.version() == 2)
        // A failing migration leaves the previous version whole.
        let broken = v2 + ["ALTER TABLE transfers ADD COLUMN x TEXT; THIS IS NOT SQL;"]
        #expect(throws: TransferStoreError.self) { _ = try TransferStore(database: database, migrations: broken) }
        #expect(try store.version() == 2)
        #expect(try database.query("SELECT count(*) FROM pragma_table_info('transfers') WHERE name = 'x'").first?[0].int64 == 0)
    }

    @Test func aNewerSchemaIsLeftAlone() throws {
        let scratch = try Scratch()
        let database = try SQLiteDatabase(path: scratch.database)
        try database.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        try database.execute("INSERT INTO schema_version (version) VALUES (7)")
        #expect(throws: TransferStoreError.newerSchema(found: 7, supported: TransferStore.schemaVersion)) {
            _ = try TransferStore(database: database)
        }
        #expect(try database.query("SELECT count(*) FROM sqlite_master WHERE name = 'transfers'").first?[0].int64 == 0)
    }

    // MARK: JSON

    @Test func theJSONObjectFollowsTheContract() {
        var t = Self.download("/srv/a.iso", id: "id-1", created: 1_700_000_000)
        t.state = .waiting(unmet: [.ac, .unmetered])
        t.requirements.discretionary = true
        #expect(t.json.serialized == """
            {"id":"id-1","url":"https://example.org/file.iso","destination":"/srv/a.iso","state":"waiting",\
            "waitingFor":["ac","unmetered"],"discretionary":true,"priority":"normal","batch":null,"bytes":0,\
            "totalBytes":null,"attempts":0,"nextAttempt":null,"deadline":1700604800,"error":null,\
            "reason":"ac, unmetered"}
            """)
        t.state = .retrying(next: 1_700_000_030.5)
        t.batch = "nightly"
        t.durableBytes = 512
        t.validators.totalLength = 1024
        t.attemptsWithoutProgress = 2
        t.lastError = "HTTP 503"
        #expect(t.json.serialized == """
            {"id":"id-1","url":"https://example.org/file.iso","destination":"/srv/a.iso","state":"retrying",\
            "waitingFor":[],"discretionary":true,"priority":"normal","batch":"nightly","bytes":512,\
            "totalBytes":1024,"attempts":2,"nextAttempt":1700000030.5,"deadline":1700604800,"error":"HTTP 503",\
            "reason":"HTTP 503"}
            """)
        t.state = .failed(reason: "HTTP 404")
        #expect(t.json.serialized.hasSuffix(#""state":"failed","waitingFor":[],"discretionary":true,"priority":"normal","batch":"nightly","bytes":512,"totalBytes":1024,"attempts":2,"nextAttempt":null,"deadline":1700604800,"error":"HTTP 404","reason":"HTTP 404"}"#))
        t.state = .running
        #expect(t.json.serialized.hasSuffix(#""error":"HTTP 503","reason":null}"#))
        #expect(Transfer.json([]).serialized == "[]")
    }
}
