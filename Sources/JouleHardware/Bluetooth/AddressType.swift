/// The advertiser's address type as the LE reports give it.
public enum AddressType: Sendable, Hashable {
    case `public`, random, publicIdentity, randomIdentity
    /// Extended reports use 0xFF for anonymous adverts, which carry no address.
    case anonymous
    case other(UInt8)

    public init(code: UInt8) {
        switch code {
        case 0x00: self = .public
        case 0x01: self = .random
        case 0x02: self = .publicIdentity
        case 0x03: self = .randomIdentity
        case 0xFF: self = .anonymous
        default: self = .other(code)
        }
    }

    /// The contract's name: identity addresses resolved by the controller keep their kind;
    /// nil (JSON null) for anonymous and reserved codes.
    public var jsonName: String? {
        switch self {
        case .public, .publicIdentity: "public"
        case .random, .randomIdentity: "random"
        case .anonymous, .other: nil
        }
    }
}
