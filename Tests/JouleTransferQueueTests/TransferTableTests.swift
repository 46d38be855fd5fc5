import Testing
@testable import JouleTransferQueue

/// What `joule transfer list` and `show` print for people.
@Suite struct TransferTableTests {
    static func snapshot(_ id: String, _ state: TransferState, bytes: Int64 = 0, total: Int64? = nil) -> TransferSnapshot {
        TransferSnapshot(
            id: id, url: "https://example.org/\(id.prefix(4))", destination: "/d/\(id.prefix(4))", state: state, bytes: bytes,
            totalBytes: total, deadline: 1_700_604_800)
    }

    @Test(arguments: [
        (Int64(52), Int64?(100), true, "[#####.....] 52%"),
        (0, 100, true, "[..........] 0%"),
        (100, 100, true, "[##########] 100%"),
        (7, 0, true, "[##########] 100%"),
        (52, 100, false, "52/100"),
        (52, nil, true, "52"),
        (52, nil, false, "52"),
    ])
    func progress(_ bytes: Int64, _ total: Int64?, _ terminal: Bool, _ expected: String) {
        #expect(TransferTable.progress(bytes: bytes, total: total, terminal: terminal) == expected)
    }

    @Test func idsAreCutWhereTheyStayUnique() {
        #expect(TransferTable.uniqueLength(["0123456789", "abcdefghij"]) == 8)
        #expect(TransferTable.uniqueLength(["012345678a", "012345678b"]) == 10)
        #expect(TransferTable.uniqueLength(["0123"]) == 4)
        #expect(TransferTable.uniqueLength([]) == 0)
    }

    @Test func theTableAlignsColumns() {
        let lines = TransferTable.render([
            Self.snapshot("aaaaaaaa-1111", .waiting(unmet: [.ac, .unmetered])),
            Self.snapshot("bbbbbbbb-2222", .running, bytes: 52, total: 100),
        ], terminal: true)
        #expect(lines == [
            "ID        STATE    PROGRESS          REASON         URL",
            "aaaaaaaa  waiting  0                 ac, unmetered  https://example.org/aaaa",
            "bbbbbbbb  running  [#####.....] 52%  -              https://example.org/bbbb",
        ])
        #expect(TransferTable.render([], terminal: false) == ["No transfers."])
    }

    @Test func showPrintsAFieldALine() {
        var transfer = Self.snapshot("cccccccc-3333", .retrying(next: 1_700_000_030.5), bytes: 10, total: 20)
        transfer.error = "503 Service Unavailable"
        transfer.batch = "nightly"
        #expect(TransferTable.details(transfer) == [
            "id: cccccccc-3333", "url: https://example.org/cccc", "destination: /d/cccc", "state: retrying", "waitingFor: -",
            "discretionary: false", "priority: normal", "batch: nightly", "bytes: 10", "totalBytes: 20", "attempts: 0",
            "nextAttempt: 2023-11-14T22:13:50.5Z", "deadline: 2023-11-21T22:13:20Z", "error: 503 Service Unavailable",
            "reason: 503 Service Unavailable",
        ])
    }

    /// Issue 32: the REASON column says why a transfer waits, retries or failed.
    @Test func theReasonColumnSaysWhyItWaitsOrFailed() {
        var retrying = Self.snapshot("dddddddd-4444", .retrying(next: 1_700_000_030))
        retrying.error = "cannot connect to 127.0.0.1:9: connection refused (ECONNREFUSED)"
        let lines = TransferTable.render([
            retrying,
            Self.snapshot("eeeeeeee-5555", .failed(reason: "HTTP 404")),
            Self.snapshot("ffffffff-6666", .waiting(unmet: [.beginAfter])),
            Self.snapshot("00000000-7777", .completed),
        ], terminal: false)
        #expect(lines.first?.contains("  REASON  ") == true, "\(lines)")
        #expect(lines[1].contains("  cannot connect to 127.0.0.1:9: connection refused (ECONNREFUSED)  "), "\(lines)")
        #expect(lines[2].contains("  HTTP 404  "), "\(lines)")
        #expect(lines[3].contains("  beginAfter  "), "\(lines)")
        #expect(lines[4].contains("  -  "), "\(lines)")
    }
}
