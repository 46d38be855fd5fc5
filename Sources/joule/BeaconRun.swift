#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Dispatch
import JouleHardware
import JoulePolicy

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
        let signals = live.map(SignalStopper.init)
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
}

/// SIGINT/SIGTERM end the event stream through a dispatch signal source (no work in a raw
/// handler), so the runner disables scanning and the transport restores its filter.
final class SignalStopper {
    private let sources: [any DispatchSourceSignal]

    init(_ transport: LiveHCITransport) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { transport.stopEvents() }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
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

import Synchronization
