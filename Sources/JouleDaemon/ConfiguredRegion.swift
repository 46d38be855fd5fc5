import JouleLocation

/// One `regions:` entry: `region: NAME=LAT,LON,RADIUS_M` and `exec: CMD`.
package struct ConfiguredRegion: Sendable, Equatable {
    package var region: CircularRegion
    package var exec: String?
}
