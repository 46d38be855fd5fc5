/// The one place where spans of time (`Duration`) meet instants (Unix seconds as `Double`, as
/// the engines' clocks give them) and the seconds that the command line and the JSON contracts
/// use. `JouleClock.sleep(for:)` is the clock's side of it.

extension Duration {
    /// The span in seconds, for arithmetic with instants and for printing. Dividing (rather than
    /// summing `components`) gives back the Double a span was made from for the values checked
    /// (0.3, 0.7, 1.7, 7.3, 123.456, ...), which keeps printed options and JSON fields unchanged.
    public var inSeconds: Double { self / .seconds(1) }

    /// Seconds as the command line gives them, or nil when no `Duration` can hold them (NaN or
    /// infinite).
    public static func seconds(checked value: Double) -> Duration? {
        value.isFinite ? .seconds(clamping: value) : nil
    }

    /// Seconds as the command line gives them, clamped to a million years either way (NaN
    /// becomes zero): no schedule of ours tells longer spans apart, and `.seconds(_:)` would
    /// trap on the largest.
    public static func seconds(clamping value: Double) -> Duration {
        guard !value.isNaN else { return .zero }
        return .seconds(Swift.min(Swift.max(value, -Self.longest), Self.longest))
    }

    private static let longest = 3.2e13
}

/// An instant plus or minus a span: `clock.now() + interval`.
public func + (instant: Double, span: Duration) -> Double { instant + span.inSeconds }
public func - (instant: Double, span: Duration) -> Double { instant - span.inSeconds }
