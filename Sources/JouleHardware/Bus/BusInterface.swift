/// An interface to export on an object: properties read through getters, methods answered by
/// async handlers, and the signals it may emit (declared so that introspection lists them).
public struct BusInterface: Sendable {
    public struct Property: Sendable {
        public var name: String
        /// One complete type, e.g. `b`, `s`, `d`.
        public var signature: String
        /// Emits org.freedesktop.DBus.Properties.PropertiesChanged with the new value.
        public var emitsChange: Bool
        /// Called on the bus thread for every read: keep it quick (a snapshot under a lock).
        public var get: @Sendable () -> BusValue

        public init(_ name: String, _ signature: String, emitsChange: Bool = true, get: @escaping @Sendable () -> BusValue) {
            self.name = name
            self.signature = signature
            self.emitsChange = emitsChange
            self.get = get
        }
    }

    public struct Method: Sendable {
        public var name: String
        public var inSignature: String
        public var inNames: [String]
        public var outSignature: String
        public var outNames: [String]
        /// Runs as its own task; the call is answered when it returns or throws.
        public var handler: @Sendable (BusMethodCall) async throws(BusMethodError) -> [BusValue]

        public init(
            _ name: String, in inSignature: String = "", inNames: [String] = [], out outSignature: String = "",
            outNames: [String] = [],
            handler: @escaping @Sendable (BusMethodCall) async throws(BusMethodError) -> [BusValue]
        ) {
            self.name = name
            self.inSignature = inSignature
            self.inNames = inNames
            self.outSignature = outSignature
            self.outNames = outNames
            self.handler = handler
        }
    }

    public struct Signal: Sendable {
        public var name: String
        public var signature: String
        public var names: [String]

        public init(_ name: String, _ signature: String, names: [String] = []) {
            self.name = name
            self.signature = signature
            self.names = names
        }
    }

    public var name: String
    public var properties: [Property]
    public var methods: [Method]
    public var signals: [Signal]

    public init(name: String, properties: [Property] = [], methods: [Method] = [], signals: [Signal] = []) {
        self.name = name
        self.properties = properties
        self.methods = methods
        self.signals = signals
    }
}
