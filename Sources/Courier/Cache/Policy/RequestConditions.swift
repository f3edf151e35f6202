import Foundation

/// The application's own validation request, `If-None-Match` or `If-Modified-Since`, answered
/// by the cache (RFC 9111 §4.3.2): the cache finds the response it would deliver (stored,
/// revalidated or from the network) and, when that response is a `200` the application
/// already holds, delivers `304 Not Modified` instead.
///
/// The conditions are evaluated as RFC 9110 §13.2.2 orders them: `If-None-Match` with the weak
/// comparison (§13.1.2), and `If-Modified-Since` only without it (§13.1.3), against the
/// response's `Last-Modified`, else its `Date`. An `If-Modified-Since` that is not an HTTP
/// date is ignored, as the RFC requires.
struct RequestConditions: Sendable, Equatable {
    /// What `If-None-Match` asks for.
    enum Tags: Sendable, Equatable {
        /// `*`: any current representation.
        case any
        /// These entity tags.
        case list([EntityTag])
    }

    /// `If-None-Match`, when present.
    var noneMatch: Tags?
    /// `If-Modified-Since`, when present and a valid date.
    var modifiedSince: Date?

    /// The request fields the cache answers for itself.
    static let fields = ["If-None-Match", "If-Modified-Since"]

    /// The conditions of `headers`; `nil` when they carry none the cache can evaluate.
    init?(_ headers: Headers) {
        let noneMatch = headers.values(for: "If-None-Match")
        if !noneMatch.isEmpty {
            let tags = noneMatch.flatMap(Self.split)
            if tags.contains("*") {
                self.noneMatch = .any
            } else {
                self.noneMatch = .list(tags.compactMap(EntityTag.init))
            }
        } else if let text = headers["If-Modified-Since"], let date = HTTPDate.parse(text) {
            modifiedSince = date
        } else {
            return nil
        }
    }

    /// Whether the application's copy is current for `response`, so that a `304` answers it:
    /// only a `200` is replaced.
    func holdsCurrentCopy(of response: CourierResponse) -> Bool {
        guard response.status == 200 else { return false }
        if let noneMatch {
            switch noneMatch {
            case .any:
                return true
            case .list(let tags):
                guard let current = response.headers["ETag"].flatMap(EntityTag.init) else { return false }
                return tags.contains { $0.matchesWeakly(current) }
            }
        }
        guard let modifiedSince,
            let modified = (response.headers["Last-Modified"] ?? response.headers["Date"]).flatMap({ HTTPDate.parse($0) })
        else { return false }
        return modified <= modifiedSince
    }

    /// `response`, or the `304` that replaces it when the application's copy is current. The
    /// `304` keeps the fields RFC 9110 §15.4.5 asks for (and `Last-Modified` and `Age`) and no
    /// body.
    func answer(_ response: CourierResponse) -> CourierResponse {
        guard holdsCurrentCopy(of: response) else { return response }
        var notModified = response
        notModified.status = 304
        notModified.reasonPhrase = "Not Modified"
        notModified.headers = Headers(
            response.headers.pairs.filter { Self.keptIn304.contains($0.0.lowercased()) }
        )
        notModified.body = Data()
        return notModified
    }

    /// The fields a `304` carries over from the `200` it stands for.
    static let keptIn304: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified", "age",
    ]

    /// The members of an `If-None-Match` value: entity tags separated by commas outside quotes.
    static func split(_ value: String) -> [String] {
        FieldList.splitOutsideQuotes(value, escapes: false)
            .map { String(Substring($0)).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }
}
