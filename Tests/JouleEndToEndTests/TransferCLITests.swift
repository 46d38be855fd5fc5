import Foundation
import JouleWire
import JouleHardware
import JouleClient
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule transfer` misused, or with no daemon: usage errors exit 2 before any bus is touched,
/// and a daemon that is not running exits 1 saying so.
@Suite struct TransferCLIUsageTests {
    @Test(arguments: [
        (["transfer", "add", "https://example.org/x", "--to", "a", "--upload", "b"], "--to and --upload exclude each other"),
        (["transfer", "add", "https://example.org/x", "--method", "PUT"], "--method applies to --upload only"),
        (["transfer", "add", "https://example.org/x", "--upload", "b", "--method", "GET"], "--method must be PUT or POST"),
        (["transfer", "add", "https://example.org/x", "--priority", "urgent"], "--priority must be high, normal or low"),
        (["transfer", "add", "https://example.org/x", "--header", "NoColon"], "--header must be 'Name: value'"),
        (["transfer", "add", "https://example.org/dir/"], "names no file to save as"),
        (["transfer", "add", "https://example.org/x", "--timeout", "soon"], "soon"),
        (["transfer", "wait", "abc", "--timeout=-1"], "--timeout must be zero or more seconds"),
        // Issue 32: values the daemon would refuse are refused here, before the bus is touched.
        (["transfer", "add", "https://example.org/x", "--sha256", "xyz"], "--sha256 must be 64 hex digits, not \"xyz\""),
        (["transfer", "add", "ftp://example.org/x", "--to", "/tmp/x"], "URL: unsupported scheme \"ftp\""),
        (["transfer", "add", "not a url", "--to", "/tmp/x"], "URL: \"not a url\" is not a URL"),
        (["transfer", "add", "https://example.org/x", "--timeout", "0"], "--timeout must be a positive number of seconds"),
        (["transfer", "add", "https://example.org/x", "--begin-after=-5"], "--begin-after must be 0 to 31622400 seconds (a year)"),
        (["transfer", "add", "https://example.org/x", "--batch", ""], "--batch must be 1 to 255 bytes"),
        (["transfer", "add", "https://example.org/x", "--upload", "/etc/hostname", "--sha256", String(repeating: "a", count: 64)],
         "--sha256: only a download's body can be checked"),
        (["transfer", "show"], "id"),
    ])
    func misuseExitsTwo(_ arguments: [String], _ message: String) async throws {
        let result = try await CLIHarness.run(arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // The first line says what is wrong.
        #expect(result.stderr.split(separator: "\n").first?.contains("Error: ") == true, "\(result.stderr)")
    }

    @Test(.enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"))
    func noDaemonExitsOneSayingSo() async throws {
        try await PrivateBusDaemon.with { bus in
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["XDG_RUNTIME_DIR"] = nil
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
            for arguments in [["transfer", "list"], ["transfer", "add", "https://example.org/x", "--to", "/tmp/x"], ["transfer", "wait", "abc"]] {
                let result = try await DaemonClientCLITests.run(arguments, environment: environment)
                #expect(result.status == 1, "\(arguments): \(result)")
                #expect(result.stderr.contains("joule daemon is not running on the session or system bus"), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
        }
    }
}

/// `joule transfer` against the real `joule daemon` on a private system bus, downloading from
/// Tests/Support/fault_http_server.py: what each subcommand prints, its exit status, the JSON
/// contract, and the refusals.
@Suite(.serialized, .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"))
struct TransferCLITests {
    let daemon: DaemonHarness
    let server: FaultHTTPServer

    init() async throws {
        daemon = try await DaemonHarness()
        try daemon.writeConfig("")
        try await daemon.start()
        server = try await FaultHTTPServer.start()
    }

    /// The binding key order of a transfer object.
    static let keys = [
        "id", "url", "destination", "state", "waitingFor", "discretionary", "priority", "batch", "bytes", "totalBytes",
        "attempts", "nextAttempt", "deadline", "error", "reason",
    ]

    func joule(_ arguments: [String], in directory: URL? = nil) async throws -> CLIHarness.Result {
        try await DaemonClientCLITests.run(["transfer"] + arguments, environment: daemon.environment, directory: directory)
    }

    /// `add` that must succeed; returns the id it printed.
    func add(_ arguments: [String]) async throws -> String {
        let result = try await joule(["add"] + arguments)
        #expect(result.status == 0, "\(result) \(daemon.log)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(text) else { throw HarnessError("not an object: \(text)") }
        return object
    }

    @Test func addThenWaitDownloadsTheFile() async throws {
        let destination = server.destination("big.bin")
        let id = try await add([server.url("/big.bin?size=200000"), "--to", destination])
        #expect(id.count == 36, "\(id)")
        let waited = try await joule(["wait", id, "--timeout", "120"])
        #expect(waited.status == 0, "\(waited) \(daemon.log)")
        #expect(waited.stdout == "completed\n")
        #expect(FaultHTTPServer.fileBytes(destination) == FaultHTTPServer.body(size: 200_000))
        #expect(!FaultHTTPServer.exists(destination + ".part"))

        let shown = try await joule(["show", id, "--json"])
        #expect(shown.status == 0, "\(shown)")
        let object = try Self.object(shown.stdout)
        #expect(object.entries.map(\.0) == Self.keys)
        #expect(object["state"] == .string("completed"))
        #expect(object["bytes"]?.intValue == 200_000)
        #expect(object["totalBytes"]?.intValue == 200_000)
        #expect(object["destination"] == .string(destination))
        // A finished transfer waits at once, and so does a second wait.
        #expect(try await joule(["wait", String(id.prefix(8))]).status == 0)
    }

    /// Without --to the file is named after the URL's last segment, in the caller's directory.
    @Test func aDownloadDefaultsToTheWorkingDirectory() async throws {
        let added = try await joule(["add", server.url("/named.bin?size=1000")], in: server.directory)
        #expect(added.status == 0, "\(added) \(daemon.log)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await joule(["wait", id, "--timeout", "120"]).status == 0)
        #expect(FaultHTTPServer.fileBytes(server.destination("named.bin")) == FaultHTTPServer.body(size: 1000))
    }

    /// `add --json`, `show --json` and `list --json` print the contract's objects in its key
    /// order; the table and `show` find the transfer by its short id.
    @Test func jsonShapeTableAndShow() async throws {
        let destination = server.destination("later.bin")
        let added = try await joule([
            "add", server.url("/later.bin"), "--to", destination, "--begin-after", "3600", "--batch", "nightly",
            "--priority", "high", "--json",
        ])
        #expect(added.status == 0, "\(added) \(daemon.log)")
        let object = try Self.object(added.stdout)
        #expect(object.entries.map(\.0) == Self.keys)
        guard let id = object["id"]?.stringValue else { throw HarnessError("no id in \(added.stdout)") }
        #expect(object["url"] == .string(server.url("/later.bin")))
        #expect(object["destination"] == .string(destination))
        #expect(object["state"] == .string("waiting"))
        #expect(object["waitingFor"]?.arrayValue?.contains(.string("beginAfter")) == true, "\(added.stdout)")
        #expect(object["discretionary"] == .bool(false))
        #expect(object["priority"] == .string("high"))
        #expect(object["batch"] == .string("nightly"))
        #expect(object["bytes"] == .int(0))
        #expect(object["totalBytes"] == .null)
        #expect(object["attempts"] == .int(0))
        #expect(object["nextAttempt"] == .null)
        #expect(object["error"] == .null)
        #expect(object["reason"] == .string("beginAfter, batch"), "\(added.stdout)")
        #expect((object["deadline"]?.doubleValue ?? 0) > Date().timeIntervalSince1970 + 600_000)

        let listed = try await joule(["list", "--json"])
        #expect(listed.status == 0, "\(listed)")
        guard case .array(let items) = try JSONParser.parse(listed.stdout) else { throw HarnessError("not an array: \(listed.stdout)") }
        let mine = items.first { $0["id"] == .string(id) }
        #expect(mine == .object(object), "\(listed.stdout)")

        let table = try await joule(["list"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID") == true, "\(table.stdout)")
        let row = lines.first { $0.hasPrefix(String(id.prefix(8)) + " ") }
        #expect(row?.contains("waiting") == true && row?.contains("beginAfter") == true, "\(table.stdout)")
        #expect(row?.hasSuffix(server.url("/later.bin")) == true, "\(table.stdout)")

        let shown = try await joule(["show", String(id.prefix(8))])
        #expect(shown.status == 0, "\(shown)")
        let fields = shown.stdout.split(separator: "\n").map { String($0.prefix { $0 != ":" }) }
        #expect(fields == Self.keys, "\(shown.stdout)")
        #expect(shown.stdout.contains("state: waiting\n"))
        #expect(shown.stdout.contains("batch: nightly\n"))
        #expect(try await joule(["show", id, "--json"]).stdout == added.stdout)
    }

    /// wait exits 3 while the transfer is live, 1 once it is cancelled; a second cancel is
    /// refused; nothing is left at the destination.
    @Test func cancelAndWaitExitCodes() async throws {
        let destination = server.destination("cancelled.bin")
        let id = try await add([server.url("/cancelled.bin"), "--to", destination, "--begin-after", "3600"])
        let pending = try await joule(["wait", id, "--timeout", "0.2"])
        #expect(pending.status == 3, "\(pending)")
        #expect(pending.stdout.hasPrefix("waiting"), "\(pending.stdout)")

        // A wait already listening sees the cancel.
        async let waiting = joule(["wait", id, "--timeout", "120"])
        let cancelled = try await joule(["cancel", String(id.prefix(8))])
        #expect(cancelled.status == 0, "\(cancelled)")
        let waited = try await waiting
        #expect(waited.status == 1, "\(waited)")
        #expect(waited.stdout == "cancelled\n")

        let again = try await joule(["cancel", id])
        #expect(again.status == 1, "\(again)")
        #expect(again.stderr.hasPrefix("joule transfer cancel: "), "\(again.stderr)")
        #expect(!FaultHTTPServer.exists(destination))
        #expect(!FaultHTTPServer.exists(destination + ".part"))

        let unknown = try await joule(["show", "ffffffff"])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr == "joule transfer show: no transfer ffffffff\n")
    }

    /// `--upload` relative to the caller's directory reaches the daemon absolute: the
    /// TransferFinished of its cancel names the file.
    @Test func anUploadIsSentAsAnAbsolutePath() async throws {
        let source = server.destination("upload.txt")
        try Data("payload".utf8).write(to: URL(fileURLWithPath: source))
        let client = try await TransfersClient.connect(address: daemon.bus.address, as: .system)
        let events = TransferEventLog(try await client.events())
        let added = try await joule(["add", server.url("/up"), "--upload", "upload.txt", "--method", "POST", "--begin-after", "3600"], in: server.directory)
        #expect(added.status == 0, "\(added) \(daemon.log)")
        let id = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await client.get(id).transfer.destination == nil)
        #expect(try await joule(["cancel", id]).status == 0)
        let finished = try await events.first { $0.id == id && $0.path != nil }
        #expect(finished == .finished(id: id, state: "cancelled", path: source), "\(daemon.log)")
        await client.close()
    }

    /// --on-complete reaches the daemon, which runs it with the transfer's environment.
    @Test func onCompleteRunsWithTheTransfersEnvironment() async throws {
        let destination = server.destination("hooked.bin")
        let marker = server.destination("hook.txt")
        let id = try await add([
            server.url("/hooked.bin?size=100"), "--to", destination,
            "--on-complete", "printf '%s %s %s' \"$JOULE_TRANSFER_ID\" \"$JOULE_TRANSFER_STATE\" \"$JOULE_TRANSFER_PATH\" > \(marker)",
        ])
        #expect(try await joule(["wait", id, "--timeout", "120"]).status == 0)
        // The hook runs after the signal, and its shell creates the file before printf writes
        // to it: wait for the text, not the file (at most 30 s, a bound against hanging).
        let written = { (try? String(contentsOfFile: marker, encoding: .utf8)) ?? "" }
        _ = await eventually(timeout: 30, every: .milliseconds(100)) { !written().isEmpty }
        #expect(written() == "\(id) completed \(destination)", "\(daemon.log)")
    }

    /// A wait whose daemon goes away exits 1 saying so, instead of waiting for ever.
    @Test func waitEndsWhenTheDaemonLeaves() async throws {
        let id = try await add([server.url("/held.bin"), "--to", server.destination("held.bin"), "--begin-after", "3600"])
        async let waiting = joule(["wait", id])
        // Most often the wait is listening by then and sees the name lose its owner; if not, it
        // finds no daemon. Either way it must exit 1 saying why, not hang.
        try await Task.sleep(for: .milliseconds(500))
        #expect(await daemon.stop(SIGTERM) == 0, "\(daemon.log)")
        let waited = try await waiting
        #expect(waited.status == 1, "\(waited)")
        #expect(waited.stderr.contains("left the bus") || waited.stderr.contains("not running"), "\(waited.stderr)")
    }

    /// Issue 32, item 6 as reported: a refused connection retries, and `list` says why in its
    /// REASON column, one sentence with the errno's name; no `.part` is left meanwhile.
    @Test func aRefusedConnectionShowsItsReasonInTheList() async throws {
        let closed = try await FaultHTTPServer.start()
        try await closed.stop()
        let destination = server.destination("refused.bin")
        let id = try await add([closed.url("/x"), "--to", destination])
        let sentence = "cannot connect to 127.0.0.1:\(closed.port): connection refused (ECONNREFUSED)"
        var shown = ""
        let retrying = try await eventually(timeout: 60, every: .milliseconds(100)) {
            shown = try await joule(["show", id, "--json"]).stdout
            return shown.contains("\"state\":\"retrying\"")
        }
        #expect(retrying, "\(shown) \(daemon.log)")
        #expect(try Self.object(shown)["reason"] == .string(sentence), "\(shown)")
        let table = try await joule(["list"])
        #expect(table.stdout.split(separator: "\n").first?.contains("REASON") == true, "\(table.stdout)")
        let row = table.stdout.split(separator: "\n").first { $0.hasPrefix(String(id.prefix(8)) + " ") }
        #expect(row?.contains("retrying") == true && row?.contains(sentence) == true, "\(table.stdout)")
        #expect(!FaultHTTPServer.exists(destination + ".part"))
        #expect(try await joule(["cancel", id]).status == 0)
    }

    /// A 404 fails at once; wait exits 1 with the reason.
    @Test func aFailedTransferExitsOne() async throws {
        let destination = server.destination("missing.bin")
        let id = try await add([server.url("/missing.bin?status=404"), "--to", destination])
        let waited = try await joule(["wait", id, "--timeout", "120"])
        #expect(waited.status == 1, "\(waited) \(daemon.log)")
        #expect(waited.stdout.hasPrefix("failed"), "\(waited.stdout)")
        #expect(waited.stdout.contains("404"), "\(waited.stdout)")
        #expect(!FaultHTTPServer.exists(destination))
    }

    /// A `--to` the daemon finds wrong (its directory is missing) exits 2, the user's input; a
    /// destination another transfer writes exits 1; both name what is wrong and leave no file.
    /// (Bad values that need no file system exit 2 before the bus is touched:
    /// `TransferCLIUsageTests`.)
    @Test func badRequestsAreRefusedClearly() async throws {
        let destination = server.destination("refused.bin")
        let missing = "/nonexistent-\(UUID().uuidString)/dir"
        let noDirectory = try await joule(["add", server.url("/x"), "--to", missing + "/file"])
        #expect(noDirectory.status == 2, "\(noDirectory)")
        #expect(noDirectory.stderr.hasPrefix("joule transfer add: ") && noDirectory.stderr.contains(missing), "\(noDirectory.stderr)")

        let first = try await add([server.url("/busy.bin"), "--to", destination, "--begin-after", "3600"])
        let second = try await joule(["add", server.url("/other.bin"), "--to", destination])
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains(first), "the refusal should name the transfer holding the destination: \(second.stderr)")
        #expect(!FaultHTTPServer.exists(destination))
        #expect(try await joule(["cancel", first]).status == 0)
    }
}

/// Where `joule transfer` looks for the daemon, as `joule status` does: the session bus when
/// it has the daemon, else the system bus.
@Suite(.serialized, .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"))
struct TransferBusChoiceTests {
    /// `joule daemon --session` on the session bus, with no system bus at all.
    @Test func aSessionDaemonIsFound() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("")
        var environment = daemon.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = daemon.bus.address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(daemon.directory.path)/no-system-bus"
        try await daemon.start(["--session"], environment: environment)
        let listed = try await DaemonClientCLITests.run(["transfer", "list", "--json"], environment: environment)
        #expect(listed.status == 0, "\(listed) \(daemon.log)")
        #expect(listed.stdout == "[]\n")
    }

    /// A session bus without the daemon is passed over for the system bus that has it.
    @Test func theSystemDaemonIsFoundPastAnEmptySessionBus() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("")
        try await daemon.start()
        try await PrivateBusDaemon.with { session in
            var environment = daemon.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = session.address
            let listed = try await DaemonClientCLITests.run(["transfer", "list"], environment: environment)
            #expect(listed.status == 0, "\(listed) \(daemon.log)")
            #expect(listed.stdout == "No transfers.\n")
        }
    }
}
