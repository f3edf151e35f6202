/// A point on the continuous clock, stored in a form whose size the compiler knows.
///
/// `ContinuousClock.Instant` comes from a module built for library evolution and is not
/// frozen, so outside it its size is known only at run time: every value that holds one (a
/// request with a deadline, a response's timing) is copied, moved and destroyed through the
/// runtime's value witnesses, and each use looks its metadata up. Values on the request path
/// keep a `ClockReading` instead (a `Duration` from a fixed instant of the process, which is
/// frozen) and give out `ContinuousClock.Instant` where one is asked for.
struct ClockReading: Hashable, Comparable, Sendable {
    /// The instant every reading is measured from: taken once, when first asked for.
    private static let origin = ContinuousClock.now

    /// How far this reading lies from ``origin`` (negative before it).
    private var offset: Duration

    /// The reading of `instant`.
    init(_ instant: ContinuousClock.Instant) {
        offset = instant - Self.origin
    }

    /// The clock's reading now.
    static var now: ClockReading { ClockReading(.now) }

    /// The instant this reading stands for.
    var instant: ContinuousClock.Instant { Self.origin + offset }

    static func < (lhs: ClockReading, rhs: ClockReading) -> Bool { lhs.offset < rhs.offset }

    /// The reading `duration` after `lhs`.
    static func + (lhs: ClockReading, rhs: Duration) -> ClockReading {
        var reading = lhs
        reading.offset += rhs
        return reading
    }

    /// The time from `rhs` to `lhs`.
    static func - (lhs: ClockReading, rhs: ClockReading) -> Duration { lhs.offset - rhs.offset }
}

extension Optional where Wrapped == ClockReading {
    /// The instant of the reading, if there is one.
    var instant: ContinuousClock.Instant? { map(\.instant) }
}
