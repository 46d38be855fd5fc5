import Foundation
import JouleHardware
import JouleEnergy
import JouleDaemon
import JouleTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `joule daemon` as a process on a private system bus, against writable fixture trees and
/// python3-dbusmock's power-profiles-daemon and polkitd: the contract, enacting Low Power
/// Mode with knobs or a ppd hold, restoring after signals and crashes, config reloads, and
/// the ways it refuses to start.
@Suite(.serialized, .enabled(if: PrivateBusDaemon.executable != nil, "needs dbus-daemon (scripts/install-deps.sh)"))
struct DaemonCLITests {
    static let profile = "sys/firmware/acpi/platform_profile"
    static let governor0 = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
    static let epp0 = "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference"
    static let noTurbo = "sys/devices/system/cpu/intel_pstate/no_turbo"
    static let applied = [
        "platform_profile applied", "scaling_governor applied", "energy_performance_preference applied",
        "scaling_governor applied", "energy_performance_preference applied", "no_turbo applied",
    ]

    /// The low battery (14 %, discharging) turns Low Power Mode on: the properties say so, the
    /// knobs are written and journaled, GetStatus reports them, and SIGTERM puts them back.
    @Test func servesTheContractAndEnactsLowPowerModeWithKnobs() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        #expect(try await daemon.property("LowPowerModeSource", on: client) == .string("auto"))
        #expect(try await daemon.property("OnBattery", on: client) == .bool(true))
        #expect(try await daemon.property("WarningLevel", on: client) == .string("low"))
        #expect(try await daemon.property("ThermalState", on: client) == .string("nominal"))
        let percentage = try await daemon.property("Percentage", on: client).doubleValue
        #expect(percentage.map { abs($0 - 14) < 1 } == true, "Percentage \(String(describing: percentage))")

        #expect(try daemon.knobs.read(Self.profile) == "low-power\n")
        #expect(try daemon.knobs.read(Self.governor0) == "powersave\n")
        #expect(try daemon.knobs.read(Self.epp0) == "power\n")
        #expect(try daemon.knobs.read(Self.noTurbo) == "1\n")
        #expect(FileManager.default.fileExists(atPath: daemon.runtimeDirectory + "/lowpower-knobs.json"))
        let status = try await daemon.status(on: client)
        #expect(status["source"] as? String == "daemon")
        #expect(status["lowPowerMode"] as? Bool == true)
        #expect(try await daemon.actions(on: client) == Self.applied)

        // busctl, a peer sharing no code with joule, sees the contract.
        let introspection = try await Self.busctl(["--address=\(daemon.bus.address)", "introspect", "org.joule.Energy1", "/org/joule/Energy1"])
        for member in [".LowPowerMode", ".LowPowerModeSource", ".ThermalState", ".OnBattery", ".Percentage", ".WarningLevel",
                       ".SetLowPowerMode", ".GetStatus", ".GetMetrics", ".PowerStateDidChange", ".ThermalStateDidChange",
                       ".ChargeLimit", ".SetChargeLimit", ".ChargeFullOnce"] {
            #expect(introspection.contains(member), "introspection lacks \(member): \(introspection)")
        }

        await client.close()
        #expect(await daemon.stop(SIGTERM) == 0, "\(daemon.log)")
        #expect(try daemon.knobs.sysFiles() == before)
        #expect(daemon.log.contains("stopped; knobs restored"))
    }

    /// SetLowPowerMode("off") as root (no polkit on the bus: root only) restores the knobs at
    /// once, announces PowerStateDidChange and PropertiesChanged, and the choice is manual.
    @Test func setLowPowerModeOffRestoresAndSignals() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        let signals = try await client.signals(matching: "type='signal',sender='org.joule.Energy1',interface='org.joule.Energy1',member='PowerStateDidChange'")
        let changes = try await client.signals(matching: "type='signal',sender='org.joule.Energy1',interface='org.freedesktop.DBus.Properties'")
        _ = try await daemon.call("SetLowPowerMode", [.string("off")], on: client)
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        #expect(try await daemon.property("LowPowerModeSource", on: client) == .string("manual"))
        var signal = signals.makeAsyncIterator()
        let announced = await signal.next()
        #expect(announced?.arguments == [.bool(false), .string("manual-off")])
        var change = changes.makeAsyncIterator()
        let properties = await change.next()
        #expect(properties?.member == "PropertiesChanged")
        #expect("\(properties?.arguments ?? [])".contains("LowPowerMode"))
        #expect(try daemon.knobs.sysFiles() == before)
        #expect(try await daemon.actions(on: client).allSatisfy { $0.hasSuffix(" restored") })

        // A mode that is not on, off or auto is refused with InvalidArgs.
        await #expect(throws: BusError.self) { _ = try await daemon.call("SetLowPowerMode", [.string("maybe")], on: client) }
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// kill -9 with knobs applied leaves them written; a restart (after the user chose "off"
    /// in between) restores them, except a knob another tool changed since, which is left
    /// alone and logged once.
    @Test func restartAfterKill9RestoresButLeavesForeignWrites() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        await client.close()
        await daemon.stop(SIGKILL)
        #expect(try daemon.knobs.read(Self.noTurbo) == "1\n")
        try daemon.knobs.write(Self.profile, "performance\n")  // another tool, meanwhile
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try "off\n".write(toFile: daemon.stateDirectory + "/lowpower", atomically: true, encoding: .utf8)

        try await daemon.start()
        try await daemon.waitForLog("another tool owns it")
        var expected = before
        expected[Self.profile] = "performance\n"
        #expect(try daemon.knobs.sysFiles() == expected)
        #expect(daemon.log.contains("restoring knobs left by an earlier run"))
        let second = try await daemon.client()
        #expect(try await daemon.property("LowPowerMode", on: second) == .bool(false))
        #expect(try await daemon.actions(on: second).contains("platform_profile foreign"))
        await second.close()
        #expect(await daemon.stop() == 0)
        #expect(try daemon.knobs.read(Self.profile) == "performance\n")
    }

    /// `joule daemon --restore` (the unit's ExecStopPost) restores what a killed daemon left.
    @Test func restoreFlagRestoresAfterKill9() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        await client.close()
        await daemon.stop(SIGKILL)
        #expect(try daemon.knobs.sysFiles() != before)
        let restore = try await CLIHarness.run(["daemon", "--restore", "--root", daemon.knobs.path], environment: daemon.environment)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("no_turbo /sys/devices/system/cpu/intel_pstate/no_turbo: restored"))
        #expect(try daemon.knobs.sysFiles() == before)
    }

    /// Knobs the kernel refuses (EINVAL for a bad value, EACCES for a read-only file) are
    /// `failed: ERRNO`; the others are still applied.
    @Test func refusedKnobsFailAndTheOthersApply() async throws {
        let daemon = try await DaemonHarness()
        try daemon.knobs.link(Self.epp0, to: "/proc/self/oom_score_adj")  // "power" is EINVAL there
        try daemon.knobs.link(Self.profile, to: "/proc/sys/kernel/random/boot_id")  // read-only: EACCES
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        let actions = try await daemon.actions(on: client)
        #expect(actions.contains("energy_performance_preference failed: EINVAL"), "\(actions)")
        #expect(actions.contains("platform_profile failed: EACCES"), "\(actions)")
        #expect(actions.filter { $0.hasSuffix(" applied") }.count == 4, "\(actions)")
        #expect(try daemon.knobs.read(Self.noTurbo) == "1\n")
        await client.close()
        #expect(await daemon.stop() == 0)
        #expect(try daemon.knobs.read(Self.noTurbo) == "0\n")
    }

    /// SIGHUP with a bad config logs where it is wrong and keeps the old one; a good one takes
    /// effect (a higher threshold turns Low Power Mode on at 14 %).
    @Test func sighupReloadsAndKeepsTheOldConfigWhenTheNewIsBad() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("lowPowerMode:\n  lowPowerAt: 10\n  lowPowerOffAt: 80\n")
        try await daemon.start()
        let client = try await daemon.client()
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        try daemon.writeConfig("lowPowerMode:\n  lowPowerAt: lots\n")
        kill(daemon.process!.processIdentifier, SIGHUP)
        try await daemon.waitForLog("keeping the old config: \(daemon.config):2:15: lowPowerMode.lowPowerAt:")
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        try daemon.writeConfig("lowPowerMode:\n  lowPowerAt: 20\n")
        kill(daemon.process!.processIdentifier, SIGHUP)
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        #expect(daemon.log.contains("Low Power Mode on (battery-low)"))
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    @Test func aBadConfigAtStartExits2NamingFileLineColumnKey() async throws {
        let daemon = try await DaemonHarness()
        try daemon.writeConfig("lowPowerMode:\n  actuators: [knobs, magic]\n")
        let process = try daemon.launch([])
        #expect(await process.exitStatus() == 2)
        #expect(daemon.log.contains("\(daemon.config):2:22: lowPowerMode.actuators: unknown actuator \"magic\""), "\(daemon.log)")
    }

    /// Issue 32: the daemon's snapshot carries what direct mode shows, hwmon included, in the
    /// table and in `status --json`.
    @Test func daemonModeStatusKeepsTheHwmonSensors() async throws {
        let daemon = try await DaemonHarness()
        try await daemon.start()
        defer { daemon.end() }
        let direct = await DaemonHarnessRun.run(daemon, ["status", "--root", daemon.knobs.path])
        let viaDaemon = await DaemonHarnessRun.run(daemon, ["status"])
        #expect(viaDaemon.stdout.contains("joule daemon (system bus)"), "\(viaDaemon.stdout)\(viaDaemon.stderr)")
        func sensors(_ text: String) -> [Substring] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let start = lines.firstIndex(of: "Sensors (hwmon)") else { return [] }
            return Array(lines[start...].prefix { !$0.isEmpty })
        }
        #expect(sensors(direct.stdout).count == 6, "\(direct.stdout)")
        #expect(sensors(viaDaemon.stdout) == sensors(direct.stdout), "\(viaDaemon.stdout)")
        let json = await DaemonHarnessRun.run(daemon, ["status", "--json"])
        let object = try StatusCLITests.parse(json.stdout)
        #expect(object["source"] as? String == "daemon")
        #expect((object["hwmon"] as? [[String: Any]])?.map { $0["input"] as? String } == ["temp1", "temp2", "temp3", "temp4", "temp5"])
        #expect(await daemon.stop() == 0)
    }

    /// Issue 32: a config the user named must be there; only the default path may be absent.
    @Test func aNamedConfigThatIsMissingOrADirectoryExits2() async throws {
        let daemon = try await DaemonHarness()
        let missing = await DaemonHarnessRun.run(daemon, ["daemon", "--root", daemon.knobs.path, "--config", "/nonexistent.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "joule daemon: /nonexistent.yaml: cannot read: No such file or directory (ENOENT)\n", "\(missing.stderr)")
        let directory = await DaemonHarnessRun.run(daemon, ["daemon", "--root", daemon.knobs.path, "--config", daemon.directory.path])
        #expect(directory.status == 2)
        #expect(directory.stderr.hasPrefix("joule daemon: \(daemon.directory.path): cannot read: "), "\(directory.stderr)")
        #expect(directory.stderr.contains("EISDIR"), "\(directory.stderr)")
    }

    @Test func aSecondDaemonExits1NamingTheOwnersPid() async throws {
        let daemon = try await DaemonHarness()
        let first = try await daemon.start()
        let second = await DaemonHarnessRun.run(daemon, ["daemon", "--root", daemon.knobs.path, "--config", daemon.config])
        #expect(second.status == 1)
        #expect(second.stderr.contains("org.joule.Energy1 is already owned by pid \(first.processIdentifier)"), "\(second.stderr)")
        #expect(first.isRunning)
        #expect(await daemon.stop() == 0)
    }

    @Test func sessionWithoutASessionBusExits1SayingSo() async throws {
        let daemon = try await DaemonHarness()
        var env = daemon.environment
        env["XDG_RUNTIME_DIR"] = nil
        let process = try daemon.launch(["--session"], environment: env)
        #expect(await process.exitStatus() == 1)
        #expect(daemon.log.contains("no session bus"), "\(daemon.log)")
    }

    /// The config's enforce policy runs inside the daemon on the daemon's engine: Low Power
    /// Mode pauses the deferrable class, turning it off resumes it, and so does SIGTERM.
    @Test func theEnforcePolicyFollowsTheDaemonsLowPowerMode() async throws {
        let daemon = try await DaemonHarness()
        let sleeper = try Sleeper()
        defer { sleeper.end() }
        try daemon.writeConfig("""
            enforce:
              classes:
                sync:
                  level: deferrable
                  match:
                    - process: \(sleeper.name)
            """)
        try await daemon.start()
        #expect(await sleeper.wait(stopped: true), "\(daemon.log)")
        try await daemon.waitForLog("enforce: {")
        let client = try await daemon.client()
        _ = try await daemon.call("SetLowPowerMode", [.string("off")], on: client)
        #expect(await sleeper.wait(stopped: false), "\(daemon.log)")
        _ = try await daemon.call("SetLowPowerMode", [.string("on")], on: client)
        #expect(await sleeper.wait(stopped: true), "\(daemon.log)")
        await client.close()
        #expect(await daemon.stop() == 0)
        #expect(await sleeper.wait(stopped: false), "SIGTERM resumes what the daemon paused: \(daemon.log)")
    }

    /// A `cpuMonitor` watch runs inside the daemon: a busy loop over its limit leaves a report
    /// in the state directory's reports.
    @Test func aCPUMonitorWatchRunsInsideTheDaemon() async throws {
        let daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
        let name = "jspin" + UUID().uuidString.prefix(6).lowercased()
        try FileManager.default.createSymbolicLink(atPath: daemon.directory.appendingPathComponent(name).path, withDestinationPath: "/bin/sh")
        let spinner = Process()
        spinner.executableURL = daemon.directory.appendingPathComponent(name)
        spinner.arguments = ["-c", "while :; do :; done"]
        try spinner.run()
        defer { kill(spinner.processIdentifier, SIGKILL) }  // Foundation reaps it
        try daemon.writeConfig("""
            cpuMonitor:
              - match: ["^\(name)$"]
                limit: 20
                window: 1
                action: report
            """)
        try await daemon.start()
        let client = try await daemon.client()
        let violations = try await client.signals(matching: "type='signal',interface='org.joule.Energy1',member='CPUMonitorViolation'")
        try await daemon.waitForLog("cpuMonitor[0]: watching \(name) [\(spinner.processIdentifier)]")
        try await daemon.waitForLog("cpuMonitor[0]: EXC_RESOURCE CPU \(name) [\(spinner.processIdentifier)]")
        let reports = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/reports")
        #expect(!reports.isEmpty)
        // The session agent hears it: process, pid, action and the report.
        var heard: [(String, BusValue)]?
        for await signal in violations {
            heard = signal.arguments.first?.stringKeyedEntries
            break
        }
        let fields = Dictionary(heard ?? [], uniquingKeysWith: { $1 })
        #expect(fields["process"] == .string(name) && fields["pid"] == .uint32(UInt32(spinner.processIdentifier)), "\(fields)")
        #expect(fields["action"] == .string("report") && fields["exception"] == .string("EXC_RESOURCE CPU"), "\(fields)")
        #expect(fields["path"]?.stringValue.map { reports.contains(($0 as NSString).lastPathComponent) } == true, "\(fields) \(reports)")
        await client.close()
        #expect(spinner.isRunning, "action report never signals")
        #expect(await daemon.stop() == 0)
    }

    /// Under systemd (Type=notify, WatchdogSec=): READY=1 with a STATUS= line once serving,
    /// watchdog pings at half the interval, RELOADING=1 on SIGHUP, STOPPING=1 on SIGTERM.
    @Test func tellsSystemdThroughSdNotify() async throws {
        let daemon = try await DaemonHarness()
        let notify = try await NotifyListener(directory: daemon.directory)
        var env = daemon.environment
        env["NOTIFY_SOCKET"] = notify.socket
        env["WATCHDOG_USEC"] = "400000"
        let process = try await daemon.start(environment: env)
        try await notify.wait("READY=1|STATUS=Low Power Mode on (auto), thermal nominal, battery 14 % discharging, 6 knobs applied")
        try await notify.wait("WATCHDOG=1", count: 3)
        kill(process.processIdentifier, SIGHUP)
        try await notify.wait("RELOADING=1")
        try await notify.wait("READY=1", count: 2)
        #expect(await daemon.stop() == 0)
        try await notify.wait("STOPPING=1")
    }

    /// The watchdog tells the truth: its pings come from the engine's loop, so a battery
    /// attribute that blocks on read (a FIFO with no writer) stops them for longer than
    /// WatchdogSec, and they resume once the read returns. systemd's kill then (SIGABRT) leaves
    /// the knobs written; the restart restores them from the journal.
    @Test func watchdogStopsWhileTheEngineIsWedged() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        let notify = try await NotifyListener(directory: daemon.directory)
        var env = daemon.environment
        env["NOTIFY_SOCKET"] = notify.socket
        env["WATCHDOG_USEC"] = "400000"  // WatchdogSec=0.4: a ping every 0.2 s
        // As installed (a static binary with no swift-backtrace beside it): the runtime's
        // backtracer, which `swift test` enables for debug builds, handles a SIGABRT sent by
        // kill(2) and returns, leaving the process running instead of aborting.
        env["SWIFT_BACKTRACE"] = "enable=no"
        try await daemon.start(environment: env)
        try await notify.wait("WATCHDOG=1", count: 3)

        // A choice made over the bus reads the supplies at once: the engine now knows the
        // battery's attributes and refreshes them by name from here on.
        let client = try await daemon.client()
        _ = try await daemon.call("SetLowPowerMode", [.string("auto")], on: client)
        // The fixture's battery capacity becomes a FIFO; the next read of it blocks.
        let capacity = try daemon.batteryAttribute("capacity")
        try FileManager.default.moveItem(atPath: capacity, toPath: capacity + ".real")
        #expect(mkfifo(capacity, 0o644) == 0)
        // SetLowPowerMode makes the engine read the supplies at once (and wait for the reply).
        let call = Task { try await daemon.call("SetLowPowerMode", [.string("on")], on: client) }
        // Wedged: no ping for a whole second, 2.5 × WatchdogSec.
        var quiet = false
        for _ in 0..<50 where !quiet {
            let pings = notify.count("WATCHDOG=1")
            try await Task.sleep(for: .seconds(1))
            quiet = notify.count("WATCHDOG=1") == pings
        }
        #expect(quiet, "the pings went on while the engine was wedged: \(notify.notes)")

        // The read returns: the writer opens the FIFO the engine waits on, the real file goes
        // back (so the next read does not block), and the value is written.
        let writer = open(capacity, O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0, "no reader on the FIFO: errno \(errno)")
        try FileManager.default.removeItem(atPath: capacity)
        try FileManager.default.moveItem(atPath: capacity + ".real", toPath: capacity)
        _ = "14\n".withCString { write(writer, $0, 3) }
        close(writer)
        _ = try await call.value
        let resumed = notify.count("WATCHDOG=1")
        try await notify.wait("WATCHDOG=1", count: resumed + 3)
        await client.close()

        // What systemd does when the pings stop: SIGABRT. The knobs stay written; the next
        // start restores them from the journal before it decides again.
        #expect(await daemon.stop(SIGABRT) == SIGABRT)
        #expect(try daemon.knobs.sysFiles() != before)
        try "off\n".write(toFile: daemon.stateDirectory + "/lowpower", atomically: true, encoding: .utf8)
        try await daemon.start()
        #expect(daemon.log.contains("restoring knobs left by an earlier run"), "\(daemon.log)")
        #expect(try daemon.knobs.sysFiles() == before)
        #expect(await daemon.stop() == 0)
    }

    /// The system bus restarts (its daemon exits): as UPower, joule restores the knobs and
    /// exits non-zero with the reason, for systemd's Restart=on-failure.
    @Test func losingTheBusRestoresKnobsAndExitsNonZero() async throws {
        let daemon = try await DaemonHarness()
        let before = try daemon.knobs.sysFiles()
        let process = try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        #expect(try daemon.knobs.sysFiles() != before)
        daemon.bus.stop()
        #expect(await eventually(timeout: 30) { !process.isRunning }, "the daemon outlived its bus: \(daemon.log)")
        #expect(await process.exitStatus() == 1)
        #expect(daemon.log.contains("lost the bus"), "\(daemon.log)")
        #expect(daemon.log.contains("stopped after losing the bus; knobs restored"), "\(daemon.log)")
        #expect(try daemon.knobs.sysFiles() == before)
    }

    /// `ulimit -n 64`: flooded with lifecycle clients, the daemon turns the extra ones away
    /// (closed at once, not left queued), says so, and keeps serving its state.
    @Test func outOfDescriptorsItRefusesClientsAndKeepsServing() async throws {
        let daemon = try await DaemonHarness()
        try await daemon.start(under: ["/usr/bin/prlimit", "--nofile=64:64", "--"])
        defer { daemon.end() }
        let client = try await daemon.client()
        // An app under the daemon's supervision has a lifecycle socket there.
        let run = try AppRunHarness(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": daemon.bus.address])
        guard await run.waitReady() else { return }
        let socket = daemon.runtimeDirectory + "/apps/\(run.name).lifecycle"
        var clients: [SeqPacketClient] = []
        defer { for client in clients { client.close() } }
        for _ in 0..<80 { clients.append(try SeqPacketClient(path: socket)) }
        try await daemon.waitForLog("\(run.name): lifecycle socket: refused a client: ")
        #expect(daemon.log.contains("Too many open files"), "\(daemon.log)")
        // Still serving: properties and GetStatus answer.
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(true))
        let status = try await daemon.call("GetStatus", on: client)
        #expect(status.first?.stringValue?.contains("\"lowPowerMode\"") == true)
        for client in clients { client.close() }
        clients = []
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// `--session` serves on the session bus (here the private bus as DBUS_SESSION_BUS_ADDRESS,
    /// no system bus at all), and the session's user may set Low Power Mode.
    @Test func sessionModeServesOnTheSessionBus() async throws {
        let daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
        var env = daemon.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = daemon.bus.address
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=" + daemon.directory.appendingPathComponent("no-system-bus").path
        try await daemon.start(["--session"], environment: env)
        #expect(daemon.log.contains("on the session bus"), "\(daemon.log)")
        #expect(daemon.log.contains("no system bus, so no power-profiles-daemon"), "\(daemon.log)")
        let client = try await daemon.client()
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        _ = try await daemon.call("SetLowPowerMode", [.string("on")], on: client)
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(true))
        #expect(try await daemon.property("LowPowerModeSource", on: client) == .string("manual"))
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    // MARK: power-profiles-daemon (dbusmock)

    /// With power-profiles-daemon on the bus, Low Power Mode is a power-saver hold and joule
    /// writes no knob; turning it off releases the hold.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func powerProfilesDaemonHoldTakenAndReleased() async throws {
        let daemon = try await DaemonHarness()
        let ppd = try await DBusMock(.powerProfilesDaemon, address: daemon.bus.address)
        defer { ppd.stop() }
        let before = try daemon.knobs.sysFiles()
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        try await daemon.waitForLog("holding power-saver on net.hadess.PowerProfiles")
        let holds = try await Self.holds(ppd)
        #expect(holds.count == 1)
        for text in ["\"power-saver\"", "\"Low Power Mode\"", "\"joule\""] {
            #expect(holds.first?.contains(text) == true, "\(holds)")
        }
        #expect(try daemon.knobs.sysFiles() == before, "no knob is written while ppd runs")
        #expect(try await daemon.actions(on: client) == [])

        _ = try await daemon.call("SetLowPowerMode", [.string("off")], on: client)
        try await daemon.waitForLog("released power-saver hold")
        #expect(try await Self.holds(ppd).isEmpty)
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// A reload that makes power-profiles-daemon an actuator (it was `[knobs]`) moves Low Power
    /// Mode from joule's knobs to a power-saver hold at once, and one that drops it again goes
    /// back to the knobs (make test-system's scenario 6 found the daemon ignoring such a reload).
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func aReloadThatAddsPowerProfilesDaemonHoldsThere() async throws {
        let daemon = try await DaemonHarness()
        let ppd = try await DBusMock(.powerProfilesDaemon, address: daemon.bus.address)
        defer { ppd.stop() }
        let before = try daemon.knobs.sysFiles()
        try daemon.writeConfig("lowPowerMode:\n  actuators: [knobs]\n")
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        #expect(try await eventually { try daemon.knobs.sysFiles() != before }, "[knobs]: Low Power Mode writes the knobs")
        #expect(try await Self.holds(ppd).isEmpty, "[knobs]: no hold although ppd runs")

        try daemon.writeConfig("lowPowerMode:\n  actuators: [power-profiles-daemon, knobs]\n")
        kill(daemon.process!.processIdentifier, SIGHUP)
        try await daemon.waitForLog("holding power-saver on net.hadess.PowerProfiles")
        #expect(try await Self.holds(ppd).count == 1)
        #expect(try await eventually { try daemon.knobs.sysFiles() == before }, "the knobs are put back once ppd holds power-saver")

        try daemon.writeConfig("lowPowerMode:\n  actuators: [knobs]\n")
        kill(daemon.process!.processIdentifier, SIGHUP)
        try await daemon.waitForLog("released power-saver hold")
        #expect(try await eventually { try await Self.holds(ppd).isEmpty })
        #expect(try await eventually { try daemon.knobs.sysFiles() != before }, "back to [knobs]: the knobs are written again")
        await client.close()
        #expect(await daemon.stop() == 0)
        #expect(try daemon.knobs.sysFiles() == before, "stopping restores them")
    }

    /// The user picks a profile while joule holds power-saver: ppd releases the hold
    /// (ProfileReleased) and Low Power Mode turns off as a manual choice.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func aUserProfileSwitchBecomesAManualChoice() async throws {
        let daemon = try await DaemonHarness()
        let ppd = try await DBusMock(.powerProfilesDaemon, address: daemon.bus.address)
        defer { ppd.stop() }
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForLog("holding power-saver on net.hadess.PowerProfiles (cookie 1)")
        try await ppd.setProperty(interface: "net.hadess.PowerProfiles", name: "ActiveProfile", value: .string("balanced"))
        try await ppd.emitSignal(interface: "net.hadess.PowerProfiles", name: "ProfileReleased", signature: "u", arguments: [.uint32(1)])
        try await daemon.waitForProperty("LowPowerMode", .bool(false), on: client)
        #expect(try await daemon.property("LowPowerModeSource", on: client) == .string("manual"))
        #expect(daemon.log.contains("the user picked balanced"))
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// The user switches the desktop to power-saver while Low Power Mode is off: it turns on
    /// with source power-profiles-daemon, and off again when they leave power-saver.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func choosingPowerSaverTurnsLowPowerModeOn() async throws {
        let daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
        let ppd = try await DBusMock(.powerProfilesDaemon, address: daemon.bus.address)
        defer { ppd.stop() }
        try await daemon.start()
        let client = try await daemon.client()
        try await daemon.waitForLog("power-profiles-daemon found")
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        try await ppd.setProperty(interface: "net.hadess.PowerProfiles", name: "ActiveProfile", value: .string("power-saver"))
        try await daemon.waitForProperty("LowPowerMode", .bool(true), on: client)
        #expect(try await daemon.property("LowPowerModeSource", on: client) == .string("power-profiles-daemon"))
        #expect(try await Self.holds(ppd).isEmpty, "the user's own choice needs no hold")
        try await ppd.setProperty(interface: "net.hadess.PowerProfiles", name: "ActiveProfile", value: .string("balanced"))
        try await daemon.waitForProperty("LowPowerMode", .bool(false), on: client)
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// The real power-profiles-daemon (scripts/fetch-ppd.sh, under umockdev on the private
    /// bus): joule's hold switches it to power-saver, and kill -9 of joule drops the hold, as
    /// ppd drops the holds of a connection that goes away.
    @Test(.enabled("needs power-profiles-daemon (JOULE_PPD, make test sets it)") { await PowerProfilesDaemonProcess.isAvailable })
    func realPowerProfilesDaemonDropsTheHoldWhenJouleIsKilled() async throws {
        let daemon = try await DaemonHarness()
        let ppd = try await PowerProfilesDaemonProcess(address: daemon.bus.address)
        defer { ppd.stop() }
        let observer = try await daemon.client()
        try await daemon.start()
        try await daemon.waitForLog("holding power-saver on ")
        let client = try #require(await PowerProfilesClient.find(on: observer))
        #expect(try await client.activeProfile() == "power-saver")
        await daemon.stop(SIGKILL)
        var active = ""
        for _ in 0..<100 {
            active = try await client.activeProfile()
            if active != "power-saver" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(active == "balanced", "ppd kept joule's hold after joule died: \(ppd.output)")
        await observer.close()
    }

    // MARK: polkit (dbusmock)

    /// On the system bus, polkit decides SetLowPowerMode: refused (AccessDenied) until the
    /// action is allowed.
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func polkitAuthorisesSetLowPowerMode() async throws {
        let daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
        let polkit = try await DBusMock(.polkitd, address: daemon.bus.address)
        defer { polkit.stop() }
        try await daemon.start()
        let client = try await daemon.client()
        do {
            _ = try await daemon.call("SetLowPowerMode", [.string("on")], on: client)
            Issue.record("SetLowPowerMode was allowed without polkit's consent")
        } catch {
            #expect((error as? BusError)?.remoteName == "org.freedesktop.DBus.Error.AccessDenied", "\(error)")
        }
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        try await polkit.setAllowed(["org.joule.Energy1.set-low-power-mode"])
        _ = try await daemon.call("SetLowPowerMode", [.string("on")], on: client)
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(true))
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// Without polkit only root may call: another user's busctl gets AccessDenied.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func withoutPolkitOnlyRootMaySet() async throws {
        let daemon = try await DaemonHarness(fixture: "dell-latitude-7490-full-on-ac")
        try await daemon.start()
        let socket = String(daemon.bus.address.dropFirst("unix:path=".count))
        chmod(URL(fileURLWithPath: socket).deletingLastPathComponent().path, 0o755)
        let denied = try await NobodyBusctl.call(
            address: daemon.bus.address, "org.joule.Energy1", "/org/joule/Energy1", "org.joule.Energy1", ["SetLowPowerMode", "s", "on"])
        #expect(denied.status != 0)
        #expect(denied.output.contains("Access denied"), "\(denied.output)")
        #expect(daemon.log.contains("SetLowPowerMode") == false, "a refused call never reaches the engine")
        let client = try await daemon.client()
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(false))
        _ = try await daemon.call("SetLowPowerMode", [.string("on")], on: client)  // we are root
        #expect(try await daemon.property("LowPowerMode", on: client) == .bool(true))
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    // MARK: Helpers

    /// ActiveProfileHolds, each hold as text.
    static func holds(_ ppd: DBusMock) async throws -> [String] {
        let value = try await ppd.connection.property(
            destination: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles", interface: "net.hadess.PowerProfiles",
            name: "ActiveProfileHolds")
        guard case .array(_, let holds) = value else { return [] }
        return holds.map { "\($0)" }
    }

    static func busctl(_ arguments: [String]) async throws -> String {
        try await run("/usr/bin/busctl", arguments).output
    }

    /// Runs a tool to its end on a thread of its own: its status, and stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await PrivateBusDaemon.run(executable, arguments)
    }
}

/// A run to completion with the harness's environment.
enum DaemonHarnessRun {
    static func run(_ daemon: DaemonHarness, _ arguments: [String]) async -> CLIHarness.Result {
        (try? await CLIHarness.run(arguments, environment: daemon.environment)) ?? CLIHarness.Result(status: -1, stdout: "", stderr: "did not run")
    }
}
