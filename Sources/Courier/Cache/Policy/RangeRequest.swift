import Foundation

/// A request's `Range` of one byte range (RFC 9110 §14.2): `bytes=0-99`, `bytes=100-` or
/// `bytes=-50`. The cache answers such a request from a complete stored response (RFC 9111
/// §3.4 allows a cache to serve ranges of what it holds); a `Range` of several ranges, or of
/// another unit, goes to the server.
struct RangeRequest: Sendable, Equatable {
    /// The range as written: a first byte and an optional last, or a suffix length.
    enum Spec: Sendable, Equatable {
        /// `first-last`, or `first-` when `last` is `nil`.
        case from(first: Int64, last: Int64?)
        /// `-length`: the last `length` bytes.
        case suffix(length: Int64)
    }

    var spec: Spec

    /// The range of `value`; `nil` when it is not exactly one well-formed byte range.
    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let set = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return nil }
        let first = set[..<dash].trimmingCharacters(in: .whitespaces)
        let last = set[set.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let length = Self.number(last) else { return nil }
            spec = .suffix(length: length)
        } else {
            guard let start = Self.number(first) else { return nil }
            if last.isEmpty {
                spec = .from(first: start, last: nil)
            } else {
                guard let end = Self.number(last), start <= end else { return nil }
                spec = .from(first: start, last: end)
            }
        }
    }

    /// The bytes of a representation of `length` bytes this range selects; `nil` when it
    /// selects none (the range is not satisfiable).
    func bytes(in length: Int64) -> ClosedRange<Int64>? {
        switch spec {
        case .from(let first, let last):
            guard first < length else { return nil }
            return first...min(last ?? length - 1, length - 1)
        case .suffix(let suffix):
            guard suffix > 0, length > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
    }

    /// `stored` cut to this range as a `206 Partial Content`: a complete `200`, or a stored
    /// `206` part whose `Content-Range` holds every byte asked for. `nil` when the range is not
    /// satisfiable or not held, or when the stored body is content-coded (ranges count the
    /// coded bytes, and the cache keeps the decoded ones).
    func partial(of stored: CourierResponse) -> CourierResponse? {
        guard !Self.isContentCoded(stored.headers) else { return nil }
        let held: ClosedRange<Int64>
        let total: Int64
        switch stored.status {
        case 200:
            guard !stored.body.isEmpty else { return nil }
            total = Int64(stored.body.count)
            held = 0...(total - 1)
        case 206:
            guard let extent = ContentRange.extent(of: stored.headers, bodyCount: stored.body.count) else { return nil }
            (held, total) = extent
        default:
            return nil
        }
        guard let wanted = bytes(in: total), held.contains(wanted.lowerBound), held.contains(wanted.upperBound) else { return nil }
        var partial = stored
        partial.status = 206
        partial.reasonPhrase = "Partial Content"
        let start = stored.body.startIndex + Int(wanted.lowerBound - held.lowerBound)
        partial.body = Data(stored.body[start...(start + Int(wanted.upperBound - wanted.lowerBound))])
        partial.headers.set(name: "Content-Range", value: "bytes \(wanted.lowerBound)-\(wanted.upperBound)/\(total)")
        partial.headers.set(name: "Content-Length", value: String(partial.body.count))
        return partial
    }

    /// Whether `headers` give a content coding other than `identity`.
    static func isContentCoded(_ headers: Headers) -> Bool {
        !headers.values(for: "Content-Encoding").allSatisfy { value in
            FieldList.elements(value).allSatisfy { $0.lowercased() == "identity" }
        }
    }

    /// Decimal digits only, within `Int64`.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
