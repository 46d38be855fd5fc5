import JouleHardware

/// What `org.joule.Energy1`'s properties show: the daemon publishes it and its clients read
/// it back, so it lives below both.
public struct EnergyBusState: Sendable, Equatable {
    public var lowPowerMode = false
    public var source = LowPowerModeSource.auto
    public var thermalState = ThermalState.nominal
    public var onBattery = false
    /// −1 without a battery, as the contract says.
    public var percentage = -1.0
    public var warningLevel = BatteryWarningLevel.none
    /// `ChargeLimit` (`a{sv}`): empty while the daemon holds no charge limit.
    public var chargeLimit = BusValue.variantDictionary([])

    public init() {}

    /// The D-Bus names and values, in the contract's order.
    package var properties: [(String, BusValue)] {
        [
            ("LowPowerMode", .bool(lowPowerMode)), ("LowPowerModeSource", .string(source.rawValue)),
            ("ThermalState", .string(thermalState.description)), ("OnBattery", .bool(onBattery)),
            ("Percentage", .double(percentage)), ("WarningLevel", .string(warningLevel.rawValue)),
            ("ChargeLimit", chargeLimit),
        ]
    }
}
