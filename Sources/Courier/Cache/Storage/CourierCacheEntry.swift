import Foundation

/// A response as a cache store keeps it, with the facts that RFC 9111 freshness needs.
///
/// A store treats entries as opaque values: it files them under ``key`` and ``variant`` and
/// gives them back unchanged. The cache decides what the keys are and what an entry means.
public struct CourierCacheEntry: Sendable, Hashable, Codable {
    /// The primary key: the target URI, with the partition of the credentials that fetched it.
    public var key: String
    /// The secondary key: the normalised values of the request fields named by the response's
    /// `Vary`; empty when the response has no `Vary`.
    public var variant: String
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reasonPhrase: String
    /// The stored header fields.
    public var headers: Headers
    /// The body.
    public var body: Data
    /// When the request that produced the response was sent (`request_time` in RFC 9111 §4.2.3).
    public var requestDate: Date
    /// When the response was received (`response_time` in RFC 9111 §4.2.3).
    public var responseDate: Date
    /// Facts that application-level cache policies attach to an entry, such as a cache version.
    public var tags: [String: String]
    /// The version of HTTP the response arrived over; HTTP/1.1 for entries encoded before
    /// versions were kept.
    public var protocolVersion: CourierResponse.ProtocolVersion

    /// Creates an entry.
    public init(
        key: String, variant: String = "", status: Int, reasonPhrase: String = "", headers: Headers, body: Data,
        requestDate: Date, responseDate: Date, tags: [String: String] = [:], protocolVersion: CourierResponse.ProtocolVersion = .http11
    ) {
        self.key = key
        self.variant = variant
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.body = body
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.tags = tags
        self.protocolVersion = protocolVersion
    }

    /// Decodes an entry; one encoded before versions were kept reads as HTTP/1.1.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            key: try container.decode(String.self, forKey: .key),
            variant: try container.decode(String.self, forKey: .variant),
            status: try container.decode(Int.self, forKey: .status),
            reasonPhrase: try container.decode(String.self, forKey: .reasonPhrase),
            headers: try container.decode(Headers.self, forKey: .headers),
            body: try container.decode(Data.self, forKey: .body),
            requestDate: try container.decode(Date.self, forKey: .requestDate),
            responseDate: try container.decode(Date.self, forKey: .responseDate),
            tags: try container.decode([String: String].self, forKey: .tags),
            protocolVersion: try container.decodeIfPresent(CourierResponse.ProtocolVersion.self, forKey: .protocolVersion) ?? .http11
        )
    }

    /// The bytes the entry occupies, roughly: its body, keys and header fields. Stores bounded
    /// by size count this.
    public var cost: Int {
        headers.reduce(body.count + key.utf8.count + variant.utf8.count + reasonPhrase.utf8.count) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 4
        }
    }
}
