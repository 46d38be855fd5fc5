/// Core Location's proximity classes, from the estimated distance.
public enum Proximity: String, Sendable, Equatable {
    case immediate, near, far, unknown

    public init(accuracyM: Double?) {
        guard let d = accuracyM else { self = .unknown; return }
        self = d < 0.5 ? .immediate : d < 3 ? .near : .far
    }
}
