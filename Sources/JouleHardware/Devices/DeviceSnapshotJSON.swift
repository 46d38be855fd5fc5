import JouleWire

/// JSON for device snapshots, as `joule devices` prints them: what a reader saw, attribute by
/// attribute, with failed reads as `{"error": "ENOENT"}`. Keys are sorted for stable diffs.
public enum DeviceSnapshotJSON {
    public static func json(_ devices: [DeviceSnapshot], includeProperties: Bool = true) -> JSONValue {
        .array(devices.map { device in
            var object: JSONObject = [
                "subsystem": .string(device.subsystem),
                "sysname": .string(device.sysname),
                "syspath": .string(device.syspath),
            ]
            var attributes = JSONObject()
            for name in device.attributes.keys.sorted() {
                switch device.attributes[name] {
                case .value(let text)?: attributes[name] = .string(text)
                case .failed(let errno)?: attributes[name] = .object(["error": .string(errno.name)])
                case nil: break
                }
            }
            object["attributes"] = .object(attributes)
            if includeProperties {
                var properties = JSONObject()
                for key in device.properties.keys.sorted() { properties[key] = .from(device.properties[key]) }
                object["properties"] = .object(properties)
            }
            return .object(object)
        })
    }
}
