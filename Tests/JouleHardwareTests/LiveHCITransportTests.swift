import Foundation
import Testing
@testable import JouleHardware

@Suite struct LiveHCITransportTests {
    /// On a machine without Bluetooth (the CI containers) opening the live transport must fail
    /// with the message that says so, not with a trap or a bare errno.
    @Test func noBluetoothIsExplained() {
        guard !FileManager.default.fileExists(atPath: "/sys/class/bluetooth") else { return }
        for adapter in [nil, "hci0"] as [String?] {
            do {
                _ = try LiveHCITransport(adapter: adapter)
                Issue.record("opened an HCI socket without Bluetooth")
            } catch {
                #expect(error == .noBluetoothSupport || error == .noAdapter(detail: "no HCI device") || error == .adapterNotFound("hci0"))
                #expect(error.description.contains("Bluetooth") || error.description.contains("hci0"))
            }
        }
    }

    @Test func errorMessagesSayWhatToDo() {
        #expect(HCITransportError.permissionDenied(operation: "hci_send_cmd").description.contains("setcap cap_net_raw,cap_net_admin+eip"))
        #expect(HCITransportError.noBluetoothSupport.description.contains("EAFNOSUPPORT"))
        #expect(HCITransportError.adapterGone("hci0", Errno(32)).description.contains("went away"))
        #expect(HCITransportError.commandFailed(command: "LE Set Scan Enable", status: 0x0C).description.contains("Command Disallowed"))
    }
}
