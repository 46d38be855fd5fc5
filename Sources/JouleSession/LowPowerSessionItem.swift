import JouleHardware

/// A session setting and what it becomes while Low Power Mode is on.
public struct LowPowerSessionItem: Sendable {
    public var setting: any SessionSetting
    /// The value while Low Power Mode is on, given the current one; nil leaves it as it is.
    public var target: @Sendable (String?) -> String?

    public init(setting: any SessionSetting, target: @escaping @Sendable (String?) -> String?) {
        self.setting = setting
        self.target = target
    }

    /// GNOME's `enable-animations` off.
    public static func animations(_ setting: GSettingsValue) -> LowPowerSessionItem {
        LowPowerSessionItem(setting: setting) { _ in "false" }
    }

    /// KDE's `AnimationDurationFactor` 0: no animations.
    public static func animations(_ setting: KDEGlobalsValue) -> LowPowerSessionItem {
        LowPowerSessionItem(setting: setting) { _ in "0" }
    }

    /// The backlight capped at `percent` of `maximum`, only ever lowered; nil `percent` never
    /// changes it (the item is still listed, so a journal from a run with a cap is restored).
    public static func backlight(_ setting: BacklightValue, percent: Int?, maximum: Int) -> LowPowerSessionItem {
        LowPowerSessionItem(setting: setting) { current in
            guard let percent, let current = current.flatMap({ Int($0) }) else { return nil }
            let cap = BrightnessCap.level(percent: percent, maximum: maximum)
            return current > cap ? String(cap) : nil
        }
    }
}
