import Foundation
import JouleHardware
import JouleApps
import JouleTesting
import Testing

/// `joule run`'s transient scope request against python3-dbusmock's systemd template on a
/// private bus: the call's shape (as `systemd-run --scope` sends it) and the wait for the job.
/// Moving the process is systemd's part, which only a real systemd does.
@Suite struct SystemdScopeTests {
    @Test(.enabled("needs python3-dbusmock") { await DBusMock.isAvailable })
    func startsATransientScopeHoldingThePidAndWaitsForItsJob() async throws {
        let bus = try await PrivateBusDaemon()
        defer { bus.stop() }
        let systemd = try await DBusMock(.systemd, address: bus.address)
        defer { systemd.stop() }
        let connection = try await BusConnection.open(address: bus.address)
        let unit = SystemdScope.unitName(app: "editor", pid: 4242)
        #expect(unit == "joule-app-editor-4242.scope")
        let result = try await SystemdScope.start(unit: unit, pid: 4242, description: "joule app editor", on: connection)
        #expect(result == "done")
        let calls = try await systemd.call("GetMethodCalls", arguments: [.string("StartTransientUnit")])
        guard case .array(_, let entries)? = calls.first, case .structure(let fields)? = entries.first,
              case .array(_, let arguments)? = fields.last else {
            Issue.record("no StartTransientUnit call recorded: \(calls)")
            return
        }
        let text = arguments.map { "\($0)" }.joined(separator: " ")
        #expect(arguments.first?.unwrapped.stringValue == unit)
        #expect(arguments.count > 1 && arguments[1].unwrapped.stringValue == "fail")
        #expect(text.contains("PIDs") && text.contains("4242"))
        #expect(text.contains("Delegate"))
        await connection.close()
    }

    @Test func aManagerThatIsNotThereIsAnErrorNotAHang() async throws {
        let bus = try await PrivateBusDaemon()
        defer { bus.stop() }
        let connection = try await BusConnection.open(address: bus.address)
        await #expect(throws: BusError.self) {
            _ = try await SystemdScope.start(unit: "joule-app-x-1.scope", pid: 1, description: "x", on: connection, timeout: .seconds(2))
        }
        await connection.close()
    }
}
