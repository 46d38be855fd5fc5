import JouleHardware

extension DBusMock {
    /// The adapter `bluetoothd(address:)` adds.
    public static let bluezAdapterPath = "/org/bluez/hci0"
    public static let bluezMonitorManager = "org.bluez.AdvertisementMonitorManager1"
    /// The proximity UUID of the iBeacon the tests advertise, as text and as its 16 bytes.
    public static let beaconUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    public static let beaconUUIDBytes: [UInt8] = [
        0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0,
    ]

    /// bluetoothd (the bluez5 template) with one powered adapter, hci0. With `monitorFeatures`
    /// the adapter also offers AdvertisementMonitorManager1 with those `SupportedFeatures`, as
    /// bluetoothd --experimental does; `refuseMonitors` makes RegisterMonitor fail.
    public static func bluetoothd(address: String, monitorFeatures: [String]? = nil, refuseMonitors: Bool = false)
        async throws -> DBusMock
    {
        let mock = try await DBusMock(.bluez, address: address)
        try await mock.call("AddAdapter", interface: "org.bluez.Mock", arguments: [.string("hci0"), .string("joule-test")])
        if let monitorFeatures {
            try await mock.addProperties(
                interface: bluezMonitorManager,
                [
                    ("SupportedMonitorTypes", .array(elementSignature: "s", [.string("or_patterns")])),
                    ("SupportedFeatures", .array(elementSignature: "s", monitorFeatures.map(BusValue.string))),
                ], path: bluezAdapterPath)
            let code = refuseMonitors ? "raise dbus.exceptions.DBusException('no room', name='org.bluez.Error.Failed')" : ""
            try await mock.addMethod(
                interface: bluezMonitorManager, name: "RegisterMonitor", in: "o", out: "", code: code, path: bluezAdapterPath)
            try await mock.addMethod(
                interface: bluezMonitorManager, name: "UnregisterMonitor", in: "o", out: "", code: "", path: bluezAdapterPath)
        }
        return mock
    }

    /// Adapter1.Discovering of hci0; false when it cannot be read.
    public func bluezDiscovering() async -> Bool {
        (try? await connection.property(
            destination: "org.bluez", path: Self.bluezAdapterPath, interface: "org.bluez.Adapter1", name: "Discovering"))?
            .boolValue ?? false
    }

    /// Sets a Device1 property of the device at `path`; the mock emits PropertiesChanged.
    public func setBluezDevice(_ path: String, _ name: String, _ value: BusValue) async throws(BusError) {
        try await call(
            "Set", interface: "org.freedesktop.DBus.Properties", path: path,
            arguments: [.string("org.bluez.Device1"), .string(name), .variant(value)])
    }

    /// ManufacturerData `a{qv}` of an iBeacon: Apple's company id, type 0x02, length 0x15,
    /// `uuid` (16 bytes), major, minor and the measured power -59 dBm.
    public static func iBeaconManufacturerData(uuid: [UInt8] = beaconUUIDBytes, major: UInt16, minor: UInt16) -> BusValue {
        let payload: [UInt8] = [0x02, 0x15] + uuid + [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]
        return .array(
            elementSignature: "{qv}",
            [.dictEntry(.uint16(0x004C), .variant(.array(elementSignature: "y", payload.map(BusValue.byte))))])
    }
}
