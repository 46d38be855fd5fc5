#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import JouleHardware
import JoulePolicy
import Synchronization

/// Runs a beacon session for a subcommand: builds the transport, installs the SIGINT/SIGTERM
/// handling that stops scanning cleanly, paces replays, reports errors and warnings.
enum BeaconRun {
    static func run(
        configuration: BeaconSession.Configuration, source: BeaconSourceOptions,
        emit: (BeaconSession.Output) -> Void, flush: () -> Void
    ) async throws -> BeaconSession? {
        let transport: any HCITransport
        let live: LiveHCITransport?
        do throws(HCITransportError) { (transport, live) = try source.makeTransport() } catch {
            Console.error("joule beacons: \(error)")
            throw ExitCode(1)
        }
        let signals = live.map { transport in SignalTrap { _ in transport.stopEvents() } }
        var runner = BeaconSessionRunner(
            configuration: configuration, start: live == nil ? nil : Syscalls.realtimeMicros(),
            commander: ScanCommander(transport: transport, active: source.active, useExtended: source.extended))
        var warnings = 0
        runner.warn = { text in
            warnings += 1
            if warnings <= 20 { Console.error("warning: \(text)") }
            if warnings == 21 { Console.error("warning: further decode warnings are not shown") }
        }
        if source.realtime { runner.pace = ReplayPacer().pace }
        // Live, the scan follows Low Power Mode and the thermal state (a replay is what was heard).
        let energy = live != nil && !source.ignoreEnergyState ? Self.followEnergyState() : nil
        runner.policy = energy?.policy
        defer { energy?.task.cancel() }
        var failure: HCITransportError?
        do throws(HCITransportError) {
            try await runner.run { output in
                emit(output)
                flush()
            }
        } catch {
            failure = error
        }
        flush()
        signals?.cancel()
        await transport.close()
        if let replay = transport as? ReplayHCITransport, let warning = await replay.captureWarning {
            Console.error("warning: \(warning)")
        }
        if let failure {
            Console.error("joule beacons: \(failure)")
            throw ExitCode(1)
        }
        return runner.session
    }

    /// A policy switch kept in step with the live power and thermal engines; nil (scan as asked)
    /// with a warning when they cannot start.
    static func followEnergyState() -> (policy: ScanPolicySwitch, task: Task<Void, Never>)? {
        let policy = ScanPolicySwitch()
        let task = Task {
            let info: JouleProcessInfo
            do {
                info = try await JouleProcessInfo.live()
            } catch {
                Console.error("warning: scanning without power/thermal state: \(error)")
                return
            }
            policy.set(.forEnergy(lowPowerMode: info.isLowPowerModeEnabled, thermalState: info.thermalState))
            for await event in info.events {
                policy.set(.forEnergy(lowPowerMode: event.lowPowerMode, thermalState: event.thermalState))
            }
        }
        return (policy, task)
    }
}

/// Sleeps so that replayed events arrive at the capture's pace.
final class ReplayPacer: Sendable {
    private let start = ContinuousClock.now
    private let first = Mutex<Int64?>(nil)

    func pace(_ time: Int64) async {
        let origin = first.withLock { value in
            if value == nil { value = time }
            return value ?? time
        }
        let due = start + .microseconds(time - origin)
        if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
    }
}

