/// One battery's charge-control attributes, read and written. `SysfsChargeControlFiles` is the
/// kernel's (or a writable fixture tree's); tests add firmware doubles that refuse values or
/// ignore writes, as real embedded controllers do.
public protocol ChargeControlFiles: Sendable {
    /// The battery's name, e.g. `BAT0`.
    var battery: String { get }
    /// Where an attribute is, for messages: `/sys/class/power_supply/BAT0/charge_control_end_threshold`.
    func location(of attribute: ChargeAttribute) -> String
    /// The attribute's text, or nil when the battery does not have it.
    func read(_ attribute: ChargeAttribute) throws(HardwareError) -> String?
    /// Writes `value` in place; the kernel's refusal (EINVAL, EACCES, EIO) is the error.
    func write(_ attribute: ChargeAttribute, _ value: String) throws(HardwareError)
}
