import Foundation

/// A response whose body has been collected.
public struct CourierResponse: Sendable {
    /// The status code.
    public var status: Int {
        get { fields.status }
        _modify { yield &fields.status }
    }
    /// The reason phrase the server sent.
    public var reasonPhrase: String {
        get { fields.reasonPhrase }
        _modify { yield &fields.reasonPhrase }
    }
    /// The header fields, in the order received, names as sent.
    public var headers: Headers {
        get { fields.headers }
        _modify { yield &fields.headers }
    }
    /// The trailer fields that followed the body (RFC 9110 §6.5), in the order received; empty
    /// when the server sent none, for a response from the cache, and on a transport that
    /// cannot receive them (URLSession). They are never merged into ``headers``: a field a
    /// server sends after the body was not part of what the head promised.
    public var trailers: Headers {
        get { fields.trailers }
        _modify { yield &fields.trailers }
    }
    /// The body (decompressed when the server compressed it).
    public var body: Data {
        get { fields.body }
        _modify { yield &fields.body }
    }
    /// The URL that produced this response, after redirects.
    public var url: URL {
        get { fields.url }
        _modify { yield &fields.url }
    }
    /// The redirects followed to get here, first to last.
    public var redirects: [RedirectHop] {
        get { fields.redirects }
        _modify { yield &fields.redirects }
    }
    /// When the exchange started, received its first byte and ended.
    public var timing: Timing {
        get { fields.timing }
        _modify { yield &fields.timing }
    }
    /// Where the response came from.
    public var source: Source {
        get { fields.source }
        _modify { yield &fields.source }
    }
    /// Whether the response was fetched for another identical request that was in flight at
    /// the same time, and shared with this one instead of being fetched again (see
    /// ``ClientConfiguration/coalescesRequests``). Its ``source`` is then where that request's
    /// response came from.
    public var isCoalesced: Bool {
        get { fields.isCoalesced }
        _modify { yield &fields.isCoalesced }
    }
    /// The version of HTTP the response arrived over (HTTP/1.1 for a response whose version
    /// is not known, such as one stored before versions were kept).
    public var protocolVersion: ProtocolVersion {
        get { fields.protocolVersion }
        _modify { yield &fields.protocolVersion }
    }
    /// The request as last sent (after interceptors and redirects), without the credentials
    /// that ``ClientConfiguration/authentication`` added.
    public var request: CourierHTTPRequest? {
        get { fields.request }
        _modify { yield &fields.request }
    }

    /// Whether ``body`` is not the response's body: a streamed response whose reader did not
    /// read it whole, or whose body was too large to keep; such a response is never stored.
    package var lacksBody: Bool {
        get { fields.lacksBody }
        _modify { yield &fields.lacksBody }
    }

    /// The stored fields, shared by copies of this value until one of them changes.
    private struct Fields {
        var status: Int
        var reasonPhrase: String
        var headers: Headers
        var trailers = Headers()
        var body: Data
        var url: URL
        var redirects: [RedirectHop]
        var timing: Timing
        var source: Source
        var request: CourierHTTPRequest?
        var protocolVersion: ProtocolVersion
        var isCoalesced = false
        var lacksBody = false
    }

    private var storage: CopyOnWrite<Fields>

    private var fields: Fields {
        get { storage.value }
        _modify { yield &CopyOnWrite.unique(&storage).value }
    }

    /// Creates a response; transports and interceptors use this.
    public init(
        status: Int,
        reasonPhrase: String = "",
        headers: Headers = Headers(),
        body: Data = Data(),
        url: URL,
        redirects: [RedirectHop] = [],
        timing: Timing = Timing(),
        source: Source = .network,
        request: CourierHTTPRequest? = nil,
        protocolVersion: ProtocolVersion = .http11
    ) {
        storage = CopyOnWrite(
            Fields(
                status: status,
                reasonPhrase: reasonPhrase,
                headers: headers,
                body: body,
                url: url,
                redirects: redirects,
                timing: timing,
                source: source,
                request: request,
                protocolVersion: protocolVersion
            )
        )
    }

    /// Where a response came from.
    public enum Source: String, Sendable, Hashable {
        /// Loaded from the network.
        case network
        /// Served from the cache without contacting the server.
        case cache
        /// Served from the cache after the server confirmed it (304).
        case revalidated
        /// Served from the cache although it is stale.
        case stale
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The media type of the body, lower-cased, without parameters (`application/json`).
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        return type?.isEmpty == false ? type : nil
    }
}

/// One redirect followed.
public struct RedirectHop: Sendable, Hashable {
    /// The redirect's status (301, 302, 303, 307 or 308).
    public var status: Int
    /// The URL that answered with the redirect.
    public var from: URL
    /// The URL it pointed to.
    public var to: URL
    /// Creates a hop.
    public init(status: Int, from: URL, to: URL) {
        self.status = status
        self.from = from
        self.to = to
    }
}

/// When an exchange started, received its first byte and ended.
public struct Timing: Sendable, Hashable {
    /// The wall-clock time at which the request started.
    public var startDate: Date
    /// The monotonic instant at which the request started.
    public var start: ContinuousClock.Instant {
        get { startReading.instant }
        set { startReading = ClockReading(newValue) }
    }
    /// When the response head arrived.
    public var firstByte: ContinuousClock.Instant? {
        get { firstByteReading.instant }
        set { firstByteReading = newValue.map(ClockReading.init) }
    }
    /// When the body was complete.
    public var end: ContinuousClock.Instant? {
        get { endReading.instant }
        set { endReading = newValue.map(ClockReading.init) }
    }

    // The instants, kept in a form of known size (see ClockReading): a response is made and
    // copied on every request.
    private var startReading: ClockReading
    private var firstByteReading: ClockReading?
    private var endReading: ClockReading?

    /// A timing that starts now.
    public init(startDate: Date = Date(), start: ContinuousClock.Instant = .now) {
        self.init(startDate: startDate, start: ClockReading(start))
    }

    /// A timing that started at `start`.
    init(startDate: Date = Date(), start: ClockReading) {
        self.startDate = startDate
        self.startReading = start
    }

    /// Sets when the response head arrived, from a reading.
    mutating func setFirstByte(_ reading: ClockReading) { firstByteReading = reading }
    /// Sets when the body was complete, from a reading.
    mutating func setEnd(_ reading: ClockReading) { endReading = reading }
    /// Sets when the body was complete to now, unless it was set already.
    mutating func endIfOpen() {
        if endReading == nil { endReading = .now }
    }
    /// Sets when the request started, from a reading, and the wall-clock time it started.
    mutating func setStart(_ reading: ClockReading, date: Date) {
        startReading = reading
        startDate = date
    }

    /// From start to the first byte of the response.
    public var timeToFirstByte: Duration? { firstByte.map { $0 - start } }
    /// From start to end.
    public var duration: Duration? { end.map { $0 - start } }
}
