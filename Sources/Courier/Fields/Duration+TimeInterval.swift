import Foundation

extension Duration {
    /// The duration in seconds, as a `TimeInterval` for dates.
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
