import JouleWire
import JouleHardware
import JouleEnergy
import JouleDaemon

/// Stands in for `joule daemon` in client tests: the real `EnergyService` object owning
/// `org.joule.Energy1` on a bus, answering `GetStatus` with `status` and recording the modes
/// `SetLowPowerMode` was given (or refusing them as polkit would).
package final class StandInEnergyDaemon: Sendable {
    package let connection: BusConnection
    package let service: EnergyService
    package let status: String
    private let recorded = Recorded()

    private final class Recorded: Sendable { let modes = Locked<[LowPowerOverride]>([]) }

    /// What `SetLowPowerMode` was called with, in order.
    package var modes: [LowPowerOverride] { recorded.modes.withLock { $0 } }

    package init(
        address: String, initial: EnergyBusState = .init(), status: String = "{}", refuse: Bool = false
    ) async throws {
        connection = try await BusConnection.open(address: address)
        self.status = status
        let recorded = self.recorded
        service = try await EnergyService.export(
            on: connection, initial: initial,
            handlers: .init(
                setLowPowerMode: { mode, _ throws(BusMethodError) in
                    if refuse { throw .accessDenied("Not authorized by polkit") }
                    recorded.modes.withLock { $0.append(mode) }
                },
                status: { status }),
            log: { _ in })
        try await connection.requestName(EnergyBus.busName)
    }

    /// `SleepFlagged`, as the daemon sends it when a sleep it accounted drained fast.
    package func sleepFlagged(_ record: SleepRecord) async { await service.sleepFlagged(record) }

    package func close() async { await connection.close() }
}
