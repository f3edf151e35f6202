import Foundation

/// The ranges of the configuration values that have one, checked before anything is sent.
///
/// A value out of range would otherwise fail in a way that blames the network (a zero connect
/// timeout fails every request as a timeout), or be quietly replaced. Each is refused instead
/// with ``CourierError/Kind/invalidConfiguration`` and a message that names it and its range.
enum ConfigurationRanges {
    /// The longest timeout: 365 days, as the command line accepts.
    static let longestTimeout = Duration.seconds(31_536_000)

    /// The error for `name` = `value`, when it is not a timeout from just above 0 to 365 days.
    static func timeoutError(_ name: String, _ value: Duration?) -> CourierError? {
        guard let value, value <= .zero || value > longestTimeout else { return nil }
        return CourierError(.invalidConfiguration, "\(name) is \(value); give a duration more than 0 and at most 365 days.")
    }

    /// The error for `name` = `value`, when its ratio is below 1.
    static func decompressionError(_ name: String, _ value: Decompression) -> CourierError? {
        guard case .enabled(let ratio) = value, ratio < 1 else { return nil }
        return CourierError(.invalidConfiguration, "\(name) allows a ratio of \(ratio); give 1 or more, or .disabled.")
    }

    /// The error for `name` = `proxy`, when its host is empty or its port is not 1 to 65535.
    static func proxyError(_ name: String, _ proxy: Proxy) -> CourierError? {
        guard proxy.host.isEmpty || !(1...65_535).contains(proxy.port) else { return nil }
        return CourierError(.invalidConfiguration, "\(name) is \(proxy); give a host and a port from 1 to 65535.")
    }

    /// The error for `name` = `value`, when it is below `minimum`.
    static func countError(_ name: String, _ value: Int, minimum: Int) -> CourierError? {
        guard value < minimum else { return nil }
        return CourierError(.invalidConfiguration, "\(name) is \(value); give \(minimum) or more.")
    }
}

extension ClientConfiguration {
    /// The first value outside its range, as the error every request of a client made with
    /// this configuration fails with; `nil` when all are in range.
    func rangeError() -> CourierError? {
        ConfigurationRanges.timeoutError("timeouts.connect", timeouts.connect)
            ?? ConfigurationRanges.timeoutError("timeouts.read", timeouts.read)
            ?? ConfigurationRanges.timeoutError("timeouts.total", timeouts.total)
            ?? ConfigurationRanges.countError("limits.maximumBodySize", limits.maximumBodySize, minimum: 0)
            ?? ConfigurationRanges.countError("limits.maximumConcurrentRequests", limits.maximumConcurrentRequests, minimum: 1)
            ?? limits.perHostRangeError()
            ?? ConfigurationRanges.countError("redirectPolicy.maximumRedirects", redirectPolicy.maximumRedirects, minimum: 0)
            ?? ConfigurationRanges.decompressionError("decompression", decompression)
            ?? proxy.flatMap { ConfigurationRanges.proxyError("proxy", $0) }
    }
}

extension CourierHTTPRequest {
    /// Refuses a request whose own timeout or body limit is outside its range.
    func checkRanges() throws(CourierError) {
        if let error = ConfigurationRanges.timeoutError("The request's timeout", timeout)
            ?? ConfigurationRanges.countError("The request's maximumBodySize", maximumBodySize, minimum: 0)
            ?? connection.rangeError()
        {
            throw error.with(url: url)
        }
    }
}
