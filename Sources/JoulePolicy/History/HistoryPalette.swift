import Foundation
import JouleHardware

/// The chart's colours (GNOME's palette, so it sits well beside GNOME Power Statistics) and
/// the words its legends use.
enum HistoryPalette {
    static let text = "#241f31"
    static let muted = "#5e5c64"
    static let grid = "#deddda"
    static let frame = "#c0bfbc"
    static let background = "#ffffff"
    static let bandOff = "#f6f5f4"
    static let noData = "#c0bfbc"

    static func charge(_ state: PowerSupplyState?) -> String {
        switch state {
        case .discharging?: "#1c71d8"
        case .charging?: "#2ec27e"
        case .full?, .notCharging?: "#26a269"
        case .empty?: "#c01c28"
        case .unknown?, nil: "#77767b"
        }
    }

    static func chargeName(_ state: PowerSupplyState?) -> String {
        switch state {
        case .discharging?: "discharging"
        case .charging?: "charging"
        case .full?, .notCharging?: "full / not charging"
        case .empty?: "empty"
        case .unknown?, nil: "unknown"
        }
    }

    static let measuredPower = "#e66100"
    static let batteryRate = "#1a5fb4"

    static let sensors = ["#c01c28", "#813d9c", "#986a44", "#1a5fb4", "#26a269", "#e5a50a", "#63452c", "#3d3846"]

    static func lowPowerMode(_ source: LowPowerModeSource) -> String {
        switch source {
        case .auto: "#f6d32d"
        case .manual: "#e5a50a"
        case .powerProfilesDaemon: "#c64600"
        }
    }

    static func thermal(_ state: ThermalState) -> String {
        switch state {
        case .nominal: "#c0e6b0"
        case .fair: "#f9f06b"
        case .serious: "#ffa348"
        case .critical: "#e01b24"
        }
    }

    static let lineOnline = "#99c1f1"

    static func entry(_ entry: HistoryEntry) -> String { self.entry(entry.kind, entry.subtype) }

    static func entry(_ kind: HistoryEntry.Kind, _ subtype: String) -> String {
        switch (kind, subtype) {
        case (.report, "CPU_FATAL"): "#c01c28"
        case (.report, _): "#e66100"
        case (.transfer, "completed"): "#26a269"
        case (.transfer, "failed"): "#a51d2d"
        case (.transfer, _): "#77767b"
        }
    }

    /// Dark text on light fills, white on dark ones (WCAG's relative luminance of `#rrggbb`).
    static func ink(on fill: String) -> String {
        let hex = fill.dropFirst()
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return text }
        func linear(_ channel: Int) -> Double {
            let c = Double(channel) / 255
            return c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * linear(value >> 16 & 0xff) + 0.7152 * linear(value >> 8 & 0xff) + 0.0722 * linear(value & 0xff)
        return luminance < 0.3 ? "#ffffff" : text
    }
}
