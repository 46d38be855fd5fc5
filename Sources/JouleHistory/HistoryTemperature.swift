/// One temperature sensor's reading in a history row: a thermal zone (`thermal_zone0`,
/// labelled by its type, `x86_pkg_temp`) or a hwmon input (`k10temp/temp1_input`, labelled
/// `k10temp Tctl`).
package struct HistoryTemperature: Sendable, Hashable {
    /// Stable key of the sensor across rows.
    package var sensor: String
    /// What a legend shows; nil when the kernel gives no name.
    package var label: String?
    /// nil when the sensor failed at that moment (never 0).
    package var celsius: Double?

    package init(sensor: String, label: String?, celsius: Double?) {
        self.sensor = sensor
        self.label = label
        self.celsius = celsius
    }
}
