import Foundation
import JouleHardware
import JouleTesting
import Testing

/// `--gpsd HOST:PORT` and gpsd's banner: pure parsing.
struct GPSDAddressTests {
    @Test func addresses() throws {
        #expect(try GPSDAddress.parse("localhost").get() == GPSDAddress(host: "localhost", port: 2947))
        #expect(try GPSDAddress.parse("192.168.1.20:3000").get() == GPSDAddress(host: "192.168.1.20", port: 3000))
        #expect(try GPSDAddress.parse("[::1]:2948").get() == GPSDAddress(host: "::1", port: 2948))
        #expect(try GPSDAddress.parse("[fe80::1]").get() == GPSDAddress(host: "fe80::1", port: 2947))
        #expect(GPSDAddress(host: "::1", port: 2947).description == "[::1]:2947")
        #expect(GPSDAddress.standard.description == "localhost:2947")
        for bad in ["", ":2947", "host:", "host:0", "host:65536", "host:x", "::1", "[::1", "[::1]2947", "a b:1", "[]:1"] {
            #expect(throws: GPSDAddressError.self, "\(bad)") { try GPSDAddress.parse(bad).get() }
        }
    }

    @Test func banner() {
        let line = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
        #expect(GPSDVersion.decode(line: line) == GPSDVersion(release: "3.22", protocolMajor: 3, protocolMinor: 14))
        #expect(GPSDVersion.decode(line: #"{"class":"TPV","mode":1}"#) == nil)
        #expect(GPSDVersion.decode(line: "HTTP/1.1 400 Bad Request") == nil)
    }
}

/// GPSDConnection against a real gpsd that Tests/Support/gpsd_rig.py starts on a port of its
/// own, reading a pty fed with NMEA stamped with the current time. CI (CI=true) requires gpsd;
/// elsewhere the suite is skipped without it.
@Suite(.enabled("needs gpsd: run scripts/install-deps.sh (CI requires it)") { GPSDRig.shouldRun })
struct GPSDConnectionTests {
    static let still: [GPSDRig.Step] = [.fix(latitude: 48.85837, longitude: 2.294481, hdop: 0.5, epochs: 1)]

    /// The next line of class TPV with a fix, skipping the rest; nil on anything else.
    static func nextFix(_ connection: GPSDConnection, within seconds: Double = 20) async -> LocationFix? {
        let deadline = WallClock.micros() + Int64(seconds * 1e6)
        while true {
            switch await connection.next(until: deadline) {
            case .line(let line):
                if let fix = try? GPSDReport.decode(line: line, lineNumber: 0) { return fix }
            case .trouble: continue
            case .deadline, .stopped: return nil
            }
        }
    }

    @Test func probeReadsTheBannerAndNamesWhatFailed() async throws {
        let rig = try await GPSDRig(track: Self.still)
        let version = try await GPSDConnection.probe(GPSDAddress(host: "127.0.0.1", port: UInt16(rig.port))).get()
        #expect(version.protocolMajor == 3)
        // gpsd listens on the IPv6 loopback too.
        if case .success(let v6) = await GPSDConnection.probe(GPSDAddress(host: "::1", port: UInt16(rig.port))) { #expect(v6 == version) }
        let dead = GPSDAddress(host: "127.0.0.1", port: 1)
        guard case .failure(let failure) = await GPSDConnection.probe(dead) else { Issue.record("port 1 answered"); return }
        #expect(failure.description.hasPrefix("gpsd at 127.0.0.1:1: connect: "), "\(failure)")
        #expect(failure.description.contains("ECONNREFUSED"), "\(failure)")
    }

    @Test func watchingStreamsFixesStampedNowAndDeadlinesAndStopEndReads() async throws {
        let rig = try await GPSDRig(track: Self.still)
        let connection = try GPSDConnection(address: GPSDAddress(host: "127.0.0.1", port: UInt16(rig.port)))
        defer { connection.stop() }
        // Not watching: nothing comes, and the deadline ends the wait.
        #expect(await connection.next(until: WallClock.micros() + 200_000) == .deadline)
        connection.setWatching(true)
        let fix = try #require(await Self.nextFix(connection))
        #expect(abs(fix.timeMicros - WallClock.micros()) < 10_000_000, "gpsd's time is the feeder's, the wall clock")
        #expect(abs(fix.latitude - 48.85837) < 1e-6)
        #expect(fix.horizontalAccuracyM.map { abs($0 - 9.5) < 0.01 } ?? true, "eph = HDOP 0.5 × 19 m")
        #expect(rig.gpsdHasDeviceOpen())
        connection.setWatching(false)
        #expect(await connection.next(until: WallClock.micros() + 300_000) == .deadline, "no lines after the turn-off")
        connection.stop()
        #expect(await connection.next(until: nil) == .stopped)
    }

    @Test func cancellingTheReaderStopsTheConnection() async throws {
        let connection = try GPSDConnection(address: GPSDAddress(host: "127.0.0.1", port: 1))
        let reader = Task { await connection.next(until: nil) }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        #expect(await reader.value == .stopped)
        #expect(await connection.next(until: nil) == .stopped)
    }

    @Test func gpsdKilledIsTroubleNamingItThenReconnectionAndWatchAgain() async throws {
        let rig = try await GPSDRig(track: Self.still)
        let connection = try GPSDConnection(
            address: GPSDAddress(host: "127.0.0.1", port: UInt16(rig.port)), backoff: .init(initialMillis: 100, maximumMillis: 400))
        defer { connection.stop() }
        connection.setWatching(true)
        #expect(await Self.nextFix(connection) != nil)
        try await rig.kill()
        var troubles: [String] = []
        let deadline = WallClock.micros() + 20_000_000
        // The loss, then refused reconnections, each after a back-off of its own.
        while troubles.count < 3 {
            switch await connection.next(until: deadline) {
            case .trouble(let message): troubles.append(message)
            case .line: continue
            case .deadline, .stopped: Issue.record("no trouble after gpsd was killed: \(troubles)"); return
            }
        }
        let address = "gpsd at 127.0.0.1:\(rig.port): "
        #expect(troubles.allSatisfy { $0.hasPrefix(address) }, "\(troubles)")
        #expect(troubles[0].contains("connection closed by gpsd") || troubles[0].contains("ECONNRESET"), "\(troubles)")
        #expect(troubles[1].contains("connect: Connection refused (ECONNREFUSED); retrying in"), "\(troubles)")
        try await rig.restart()
        // The WATCH is sent again on the new connection: fixes flow, and gpsd opened the device again.
        #expect(await Self.nextFix(connection) != nil)
        #expect(rig.gpsdHasDeviceOpen())
    }

    /// A stand-in for gpsd that sends its banner, a report longer than any gpsd writes, and a
    /// TPV split across writes: the long one is dropped whole, the others come as lines.
    @Test func anOverlongReportIsDroppedAndSplitOnesJoined() async throws {
        let scratch = try ScratchDirectory(prefix: "joule-gpsd-fake")
        let portFile = scratch.path + "/port"
        let server = """
            import socket, time
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
            open("\(portFile).tmp", "w").write(str(s.getsockname()[1]))
            import os; os.rename("\(portFile).tmp", "\(portFile)")
            c, _ = s.accept(); s.settimeout(10)
            c.sendall(b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\\r\\n')
            c.recv(100)
            c.sendall(b'{"class":"SKY","pad":"' + b"x" * 40000 + b'"}\\n{"class":"TPV","mode":3,')
            time.sleep(0.2)
            c.sendall(b'"time":"2024-05-01T12:00:00Z","lat":1,"lon":2}\\n')
            time.sleep(10)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", server]
        try process.run()
        defer { process.terminate() }
        #expect(await eventually { FileManager.default.fileExists(atPath: portFile) })
        let port = try #require(UInt16(try String(contentsOfFile: portFile, encoding: .utf8)))
        let connection = try GPSDConnection(address: GPSDAddress(host: "127.0.0.1", port: port))
        defer { connection.stop() }
        connection.setWatching(true)
        var lines: [String] = []
        let deadline = WallClock.micros() + 20_000_000
        while lines.count < 2, case .line(let line) = await connection.next(until: deadline) { lines.append(line) }
        #expect(lines.count == 2)
        #expect(lines.first.flatMap(GPSDVersion.decode(line:)) != nil, "the banner, without its CR: \(lines.first ?? "")")
        #expect(lines.last == #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1,"lon":2}"#)
    }
}
