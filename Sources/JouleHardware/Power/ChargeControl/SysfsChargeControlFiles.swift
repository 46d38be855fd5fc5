/// A battery's charge-control attributes under `ROOT/sys/class/power_supply/NAME/`, through
/// `ControlFile` (in-place writes, as sysfs requires).
public struct SysfsChargeControlFiles: ChargeControlFiles {
    public let root: FileRoot
    public let battery: String

    public init(root: FileRoot, battery: String) {
        self.root = root
        self.battery = battery
    }

    func file(_ attribute: ChargeAttribute) -> ControlFile {
        ControlFile(root: root, path: "/sys/class/power_supply/\(battery)/\(attribute.rawValue)")
    }

    public func location(of attribute: ChargeAttribute) -> String { file(attribute).location }

    public func read(_ attribute: ChargeAttribute) throws(HardwareError) -> String? {
        let file = file(attribute)
        guard file.exists else { return nil }
        return try file.readRaw()
    }

    public func write(_ attribute: ChargeAttribute, _ value: String) throws(HardwareError) {
        try file(attribute).write(value)
    }
}
