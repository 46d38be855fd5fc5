import Foundation
import JouleHardware

extension DBusMock.Template {
    /// GeoClue2 from Joule's own dbusmock template (Tests/Support/geoclue2_template.py;
    /// python-dbusmock ships none): Manager, Client and Location objects, `EmitLocation`,
    /// `StartLevels` and `Events` on the Manager's Mock interface.
    public static let geoclue = DBusMock.Template(
        name: PackageRoot.url.appendingPathComponent("Tests/Support/geoclue2_template.py").path,
        busName: "org.freedesktop.GeoClue2", path: "/org/freedesktop/GeoClue2/Manager",
        interface: "org.freedesktop.GeoClue2.Manager")
}

extension DBusMock {
    public static let geoclueClientInterface = "org.freedesktop.GeoClue2.Client"

    /// GeoClue2 on the private bus at `address`. `fixOnStart` (Location properties, e.g.
    /// `["Latitude": 48.85, "Longitude": 2.29, "Accuracy": 25]`) is sent 50 ms after every
    /// Start; `denyStart` makes every Start fail with AccessDenied and that message.
    public static func geoclue(address: String, fixOnStart: [String: Double]? = nil, denyStart: String? = nil) async throws -> DBusMock {
        var parameters: [String: Any] = [:]
        if let fixOnStart { parameters["FixOnStart"] = fixOnStart }
        if let denyStart { parameters["DenyStart"] = denyStart }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: parameters, options: [.sortedKeys]), as: UTF8.self)
        return try await DBusMock(.geoclue, parameters: json, address: address)
    }

    /// What the GeoClue mock was asked, in order: "CreateClient PATH", "Start PATH", "Stop PATH",
    /// "DeleteClient PATH".
    public func geoclueEvents() async throws(BusError) -> [String] {
        let reply = try await call("Events")
        guard case .array(_, let items)? = reply.first else { return [] }
        return items.compactMap(\.stringValue)
    }

    /// RequestedAccuracyLevel at each successful Start, in order.
    public func geoclueStartLevels() async throws(BusError) -> [UInt32] {
        let reply = try await call("StartLevels")
        guard case .array(_, let items)? = reply.first else { return [] }
        return items.compactMap(\.uint32Value)
    }

    /// A client property as the mock holds it.
    public func geoclueClientProperty(_ client: String, _ name: String) async throws(BusError) -> BusValue {
        try await connection.property(destination: template.busName, path: client, interface: Self.geoclueClientInterface, name: name)
    }

    /// A new Location object for `client` with `properties` (Timestamp as `.structure([.uint64, .uint64])`),
    /// and LocationUpdated; "/" when the client is not started (GeoClue sends it nothing).
    @discardableResult
    public func emitGeoClueLocation(client: String, _ properties: [(String, BusValue)]) async throws(BusError) -> String {
        let reply = try await call("EmitLocation", arguments: [.objectPath(client), .variantDictionary(properties)])
        return reply.first?.stringValue ?? ""
    }
}
