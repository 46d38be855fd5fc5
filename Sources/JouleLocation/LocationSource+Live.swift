import JouleHardware

extension LocationSource {
    /// Opens `spec` as the CLI does: replay and fixed as `open(_:ttffMicros:now:)`; `gpsd` once
    /// its socket at `address` answers with its VERSION banner (else `.unavailable` naming gpsd,
    /// the address and what it said); `geoclue` on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` in
    /// `environment`), asked for the level that meets `accuracyM`, with `distanceM` as its
    /// `DistanceThreshold`; `auto`, gpsd when it answers, else GeoClue when its name has an
    /// owner (or can be activated), else `.unavailable` naming both and what each said. Live
    /// sources start their clock at the wall clock's now and have a real TTFF (`ttffMicros` is
    /// for replay and fixed sources).
    public static func open(
        _ spec: LocationSourceSpec, ttffMicros: Int64, now: Int64, gpsd address: GPSDAddress,
        accuracyM: Double = 100, distanceM: Double = 0, environment: [String: String]? = nil,
        backoff: GPSDConnection.Backoff = .init()
    ) async throws(LocationError) -> LocationSource {
        switch spec {
        case .gpsd:
            if case .failure(let failure) = await GPSDConnection.probe(address) { throw .unavailable(message: "\(failure)") }
            return try openGPSD(address, now: now, backoff: backoff)
        case .auto:
            let gpsdSaid: GPSDProbeFailure
            switch await GPSDConnection.probe(address) {
            case .success: return try openGPSD(address, now: now, backoff: backoff)
            case .failure(let failure): gpsdSaid = failure
            }
            guard let geoClueSaid = await GeoClueClient.unavailability(environment: environment) else {
                return .geoclue(try await GeoClueReceiver.open(accuracyM: accuracyM, distanceM: distanceM, environment: environment))
            }
            throw .unavailable(message: "no location source answered: \(gpsdSaid); GeoClue: \(geoClueSaid)")
        case .geoclue:
            return .geoclue(try await GeoClueReceiver.open(accuracyM: accuracyM, distanceM: distanceM, environment: environment))
        default:
            return try open(spec, ttffMicros: ttffMicros, now: now)
        }
    }

    private static func openGPSD(_ address: GPSDAddress, now: Int64, backoff: GPSDConnection.Backoff) throws(LocationError) -> LocationSource {
        do throws(HardwareError) {
            return .gpsd(try GPSDReceiver(address: address, now: now, backoff: backoff))
        } catch {
            throw .unavailable(message: "gpsd at \(address): \(error)")
        }
    }

    /// For a signal handler: ends a live source's reads, so the engine prints its summary and
    /// returns (gpsd's connection stops, GeoClue's wait is interrupted). nil for replay and fixed
    /// sources, which end on their own.
    public var stopper: (@Sendable () -> Void)? {
        switch self {
        case .gpsd(let receiver):
            let connection = receiver.connection
            return { connection.stop() }
        case .geoclue(let receiver):
            let client = receiver.client
            return { client.interrupt() }
        default: return nil
        }
    }
}
