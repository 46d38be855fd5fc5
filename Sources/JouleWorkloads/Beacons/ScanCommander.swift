import JouleHardware

/// Turns radio states into HCI commands on a transport: disable before changing parameters
/// (controllers refuse changes while scanning), parameters, then enable. Falls back to the
/// extended commands when the controller refuses the legacy ones. On a `DiscoveryTransport`
/// (BlueZ) it only turns discovery on and off, on the same schedule, and sends no command.
public struct ScanCommander: Sendable {
    public let transport: any HCITransport
    public var active: Bool
    public private(set) var useExtended: Bool
    public private(set) var current: RadioState = .off

    public init(transport: any HCITransport, active: Bool = false, useExtended: Bool = false) {
        self.transport = transport
        self.active = active
        self.useExtended = useExtended
    }

    public mutating func apply(_ state: RadioState) async throws(HCITransportError) {
        guard state != current else { return }
        if let discovery = transport as? any DiscoveryTransport {
            if state.isOn != current.isOn { try await discovery.setDiscovering(state.isOn) }
            current = state
            return
        }
        if current.isOn {
            let disable: HCICommand = useExtended ? .setExtendedScanEnable(false) : .setScanEnable(false)
            try await expectSuccess(disable)
            current = .off
        }
        guard case .scanning(let duty) = state else { return }
        if !useExtended {
            let status = try await transport.send(
                .setScanParameters(active: active, intervalSlots: duty.intervalSlots, windowSlots: duty.windowSlots))
            if status == HCIStatus.commandDisallowed || status == HCIStatus.unknownCommand {
                useExtended = true
            } else if status != HCIStatus.success {
                throw .commandFailed(command: "LE Set Scan Parameters", status: status)
            }
        }
        if useExtended {
            try await expectSuccess(
                .setExtendedScanParameters(active: active, intervalSlots: duty.intervalSlots, windowSlots: duty.windowSlots))
        }
        try await expectSuccess(useExtended ? .setExtendedScanEnable(true) : .setScanEnable(true))
        current = state
    }

    private func expectSuccess(_ command: HCICommand) async throws(HCITransportError) {
        let status = try await transport.send(command)
        guard status == HCIStatus.success else { throw .commandFailed(command: command.name, status: status) }
    }
}
