import ArgumentParser
import JouleWire
import JouleHardware
import JouleWorkloads
import JouleClient

/// Runs a beacon session for a subcommand: opens the transport, lets SIGINT/SIGTERM end the
/// events so scanning stops cleanly, and prints warnings and errors. The loop is
/// `BeaconSessionRunner`'s.
enum BeaconRun {
    /// How decode warnings are worded: by session time, or (the `scan --json` replay) by
    /// capture record, with a count of the rest at the end. The session style also flushes
    /// the output after each result; the capture style leaves that to the caller's buffer.
    enum WarningStyle {
        case session
        case captureRecords(path: String)
    }

    static func run(
        configuration: BeaconSession.Configuration, source: BeaconSourceOptions, warnings style: WarningStyle = .session,
        emit: (BeaconSession.Output) -> Void, flush: () -> Void
    ) async throws -> BeaconSession? {
        let transport: any HCITransport
        let opened: OpenedBeaconTransport?
        do throws(HCITransportError) {
            let pair = try await source.openTransport()
            transport = pair.0
            opened = pair.1
        } catch {
            Console.error("joule beacons: \(error)")
            // A capture the user named that cannot be read is their input; an adapter is the system.
            throw source.replay == nil ? JouleExit.systemFailure : JouleExit.badInput
        }
        let live = source.replay == nil
        let signals = live ? SignalTrap { _ in transport.stopEvents() } : nil
        var configuration = configuration
        // bluetoothd picks the scan window: discovery on is listening all the time.
        if opened?.kind == .bluez { configuration.listensWhileOn = true }
        if case .monitor = configuration.mode {
            let done = try await monitorThroughBlueZ(configuration, opened, emit: emit, flush: flush)
            if done {
                signals?.cancel()
                await transport.close()
                return nil
            }
        } else if let opened {
            Console.error("joule beacons: \(opened.description)")
        }
        if let warning = opened?.warning { Console.error("warning: \(warning)") }
        var runner = BeaconSessionRunner(
            configuration: configuration, start: live ? WallClock.micros() : nil,
            commander: ScanCommander(transport: transport, active: source.active, useExtended: source.extended))
        var warnings = 0
        runner.warn = { problem in
            warnings += 1
            switch style {
            case .session:
                guard let time = problem.sessionTime else { return warnings -= 1 }
                if warnings <= 20 { Console.error("warning: event at \(Double(time) / 1_000_000): \(problem.error)") }
                if warnings == 21 { Console.error("warning: further decode warnings are not shown") }
            case .captureRecords(let path):
                if warnings <= 20 { Console.error("warning: \(path): record \(problem.captureIndex ?? 0): \(problem.error)") }
            }
        }
        if source.realtime { runner.pace = ReplayPacer().pace }
        // Live, the scan follows Low Power Mode and the thermal state (a replay is what was heard).
        if live && !source.ignoreEnergyState {
            runner.energyState = { try await JouleProcessInfo.live() }
            runner.energyUnavailable = { Console.error("warning: scanning without power/thermal state: \($0)") }
        }
        var failure: HCITransportError?
        let flushEach = if case .session = style { true } else { false }
        do throws(HCITransportError) {
            if flushEach {
                try await runner.run { output in
                    emit(output)
                    flush()
                }
            } else {
                try await runner.run(emit: emit)
            }
        } catch {
            failure = error
        }
        flush()
        signals?.cancel()
        await transport.close()
        if case .captureRecords(let path) = style, warnings > 20 {
            Console.error("warning: \(path): \(warnings - 20) more records with decode problems")
        }
        if let warning = runner.captureWarning { Console.error("warning: \(warning)") }
        if let failure {
            Console.error("joule beacons: \(failure)")
            throw ExitCode(1)
        }
        return runner.session
    }

    /// Says how regions are monitored, as the first line on stderr (a JSON object:
    /// `{"mechanism","transport","adapter"}`), and monitors through bluetoothd's
    /// AdvertisementMonitorManager1 when it offers one. True when that ran to its end; false
    /// when the session should monitor instead (filtered discovery, or HCI duty cycle).
    private static func monitorThroughBlueZ(
        _ configuration: BeaconSession.Configuration, _ opened: OpenedBeaconTransport?,
        emit: (BeaconSession.Output) -> Void, flush: () -> Void
    ) async throws -> Bool {
        // A replay is what an HCI scan heard.
        var prepared: (monitor: BlueZRegionMonitor?, mechanism: RegionMonitorMechanism, note: String?) = (nil, .hciDutyCycle, nil)
        if let opened {
            prepared = await BlueZRegionMonitor.prepare(
                on: opened.transport, regions: configuration.regions, exitTimeout: configuration.exitTimeout)
        }
        let (monitor, mechanism, note) = prepared
        let line: JSONObject = [
            "mechanism": .string(mechanism.rawValue), "transport": .string(opened?.kind.rawValue ?? "replay"),
            "adapter": .from(opened?.adapter),
        ]
        Console.error(JSONValue.object(line).serialized)
        if let note { Console.error("joule beacons: \(note)") }
        guard let monitor else { return false }
        do throws(HCITransportError) {
            try await monitor.run { event in
                emit(.region(event))
                flush()
            }
        } catch {
            await monitor.transport.close()
            Console.error("joule beacons: \(error)")
            throw ExitCode(1)
        }
        return true
    }
}
