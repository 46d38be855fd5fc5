import Foundation
import JouleHardware
import JouleEnergy

/// The chart's colours and the words its legends use. Series and bands use Okabe and Ito's
/// colour-blind-safe palette and Paul Tol's YlOrBr ramp, so they stay apart for protan,
/// deutan and tritan viewers too: Low Power Mode in blues and purple (and hatched), the
/// thermal state from pale yellow to dark brown by lightness, each in a band of its own.
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
        case .discharging?: "#0072b2"
        case .charging?: "#e69f00"
        case .full?, .notCharging?: "#009e73"
        case .empty?: "#cc79a7"
        case .unknown?, nil: "#777777"
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

    static let measuredPower = "#d55e00"
    static let batteryRate = "#0072b2"

    /// Okabe and Ito's eight colours, the pale yellow last.
    static let sensors = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"]
    /// Beyond eight sensors the colours come round again with another dash.
    static let sensorDashes: [String?] = [nil, "7,3", "2,2", "8,3,2,3"]

    /// The `index`th sensor's colour and dash: distinct for the first 32.
    static func sensor(_ index: Int) -> (color: String, dash: String?) {
        let index = max(index, 0)
        return (sensors[index % sensors.count], sensorDashes[index / sensors.count % sensorDashes.count])
    }

    static func lowPowerMode(_ source: LowPowerModeSource) -> String {
        switch source {
        case .auto: "#56b4e9"
        case .manual: "#0072b2"
        case .powerProfilesDaemon: "#cc79a7"
        }
    }

    /// Low Power Mode's bands and keys: the source's colour hatched, so they differ from the
    /// thermal state's plain fills by more than hue.
    static func lowPowerModeFill(_ source: LowPowerModeSource) -> String { "url(#\(lowPowerModePattern(source)))" }

    static func lowPowerModePattern(_ source: LowPowerModeSource) -> String { "lpm-\(source.rawValue)" }

    /// The legend's word for a source.
    static func lowPowerModeName(_ source: LowPowerModeSource) -> String {
        switch source {
        case .auto: "auto"
        case .manual: "manual"
        case .powerProfilesDaemon: "power-saver"
        }
    }

    static func thermal(_ state: ThermalState) -> String {
        switch state {
        case .nominal: "#fee391"
        case .fair: "#fdae3a"
        case .serious: "#e8660e"
        case .critical: "#8c2d04"
        }
    }

    static let lineOnline = "#bbbbbb"

    /// Asleep: Paul Tol's indigo, apart from every other band; a sleep that drained fast in
    /// his vibrant red, the warmest colour of the picture's bands.
    static let asleep = "#332288"
    static let asleepDrainedFast = "#cc3311"
    /// Held at the charge limit: the battery panel's green for "full / not charging", which is
    /// what the kernel reports while a threshold or inhibit-charge holds the battery.
    static let heldAtLimit = "#009e73"

    static func entry(_ entry: HistoryEntry) -> String { self.entry(entry.kind, entry.subtype) }

    static func entry(_ kind: HistoryEntry.Kind, _ subtype: String) -> String {
        switch (kind, subtype) {
        case (.report, "CPU_FATAL"): "#d55e00"
        case (.report, _): "#e69f00"
        case (.transfer, "completed"): "#009e73"
        case (.transfer, "failed"): "#cc79a7"
        case (.transfer, _): "#777777"
        }
    }

    /// The text colour or white on `fill`, whichever contrasts more (WCAG's contrast ratio).
    static func ink(on fill: String) -> String {
        contrast(text, fill) >= contrast("#ffffff", fill) ? text : "#ffffff"
    }

    /// WCAG's contrast ratio of two `#rrggbb` colours, 1 to 21.
    static func contrast(_ a: String, _ b: String) -> Double {
        let la = luminance(a), lb = luminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// WCAG's relative luminance of `#rrggbb`; 0 for anything else.
    static func luminance(_ color: String) -> Double {
        let hex = color.dropFirst()
        guard hex.count == 6, let value = Int(hex, radix: 16) else { return 0 }
        func linear(_ channel: Int) -> Double {
            let c = Double(channel) / 255
            return c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(value >> 16 & 0xff) + 0.7152 * linear(value >> 8 & 0xff) + 0.0722 * linear(value & 0xff)
    }
}
