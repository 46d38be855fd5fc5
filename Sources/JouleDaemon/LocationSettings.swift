import JouleHardware
import JouleLocation

/// The config's `location:` section: where the daemon's fixes come from, and how regions are
/// sampled.
package struct LocationSettings: Sendable, Equatable {
    /// `source`: `auto` (gpsd, else GeoClue), `gpsd`, `geoclue` or `fixed:LAT,LON[,ACCURACY]`.
    package var source: LocationSourceSpec = .auto
    /// `gpsd`: HOST:PORT (default localhost:2947).
    package var gpsd: GPSDAddress = .standard
    /// `accuracy`: the accuracy a region's sample asks for, metres (default 100).
    package var accuracyM: Double = 100
    /// `maxSpeed`: the fastest the device is assumed to move between region samples, m/s (30).
    package var maxSpeedMps: Double = 30

    package init() {}
}
