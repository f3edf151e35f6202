import Foundation

/// Joining stored parts of one representation (RFC 9111 §3.4).
enum PartJoin {
    /// The bytes a stored part holds, and the complete length.
    static func extent(_ entry: CourierCacheEntry) -> (held: ClosedRange<Int64>, total: Int64)? {
        ContentRange.extent(of: entry.headers, bodyCount: entry.body.count)
    }

    /// `older` and `newer` as one part, with `newer`'s fields and its bytes where they overlap;
    /// `nil` unless both carry the same strong entity tag, have the same complete length, and
    /// touch or overlap.
    static func join(older: CourierCacheEntry, newer: CourierCacheEntry) -> CourierCacheEntry? {
        guard let oldTag = older.headers["ETag"].flatMap(EntityTag.init), let newTag = newer.headers["ETag"].flatMap(EntityTag.init),
            oldTag.matchesStrongly(newTag), let old = extent(older), let new = extent(newer), old.total == new.total,
            new.held.lowerBound <= old.held.upperBound + 1, old.held.lowerBound <= new.held.upperBound + 1
        else { return nil }
        let held = min(old.held.lowerBound, new.held.lowerBound)...max(old.held.upperBound, new.held.upperBound)
        var body = Data(count: Int(held.count))
        body.replaceSubrange(Int(old.held.lowerBound - held.lowerBound)..<Int(old.held.upperBound - held.lowerBound + 1), with: older.body)
        body.replaceSubrange(Int(new.held.lowerBound - held.lowerBound)..<Int(new.held.upperBound - held.lowerBound + 1), with: newer.body)
        var joined = newer
        joined.body = body
        joined.headers.set(name: "Content-Range", value: "bytes \(held.lowerBound)-\(held.upperBound)/\(new.total)")
        joined.headers.set(name: "Content-Length", value: String(body.count))
        return joined
    }

    /// `part` as the complete `200` under `variant`, when it holds every byte.
    static func complete(_ part: CourierCacheEntry, variant: String) -> CourierCacheEntry? {
        guard let (held, total) = extent(part), held.lowerBound == 0, held.upperBound == total - 1 else { return nil }
        var complete = part
        complete.variant = variant
        complete.status = 200
        complete.reasonPhrase = "OK"
        complete.headers.remove(name: "Content-Range")
        complete.headers.set(name: "Content-Length", value: String(total))
        return complete
    }
}
