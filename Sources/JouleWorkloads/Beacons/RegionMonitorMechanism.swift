/// How region monitoring finds beacons, from cheapest for the host to dearest.
public enum RegionMonitorMechanism: String, Sendable {
    /// The controller matches the patterns (MSFT extension) and wakes the host on found/lost.
    case offloaded
    /// bluetoothd matches adverts in software: an AdvertisementMonitorManager1 monitor without
    /// controller support, or filtered discovery when there is no manager.
    case bluezSoftware = "bluez-software"
    /// joule duty-cycles the radio over HCI and matches every advert itself.
    case hciDutyCycle = "hci-duty-cycle"
}
