import Foundation
import NIOConcurrencyHelpers

/// The URLs a client built lately, by what they were built from.
///
/// Building a URL from a path, a base URL and query items (``URLBuilder``) and parsing the
/// result is a good part of what a request costs the client; an app sends the same few
/// endpoints again and again, so each client remembers the last few hundred. The builder is a
/// pure function of its inputs, so a remembered URL is the URL it would build again. Inputs
/// that fail are not remembered: they fail again, with the same error.
final class URLMemo: Sendable {
    /// What a URL was built from.
    private struct Inputs: Hashable {
        var base: String?
        var path: String
        var query: [String?]
    }

    /// The inputs and their hash, computed once, before the lock is taken.
    private struct Key: Hashable {
        let inputs: Inputs
        let hash: Int

        init(_ inputs: Inputs) {
            self.inputs = inputs
            hash = inputs.hashValue
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.inputs == rhs.inputs
        }
    }

    /// How many URLs are kept; when full, the memo starts over.
    static let capacity = 256

    private let urls = NIOLockedValueBox<[Key: URL]>([:])

    /// The URL ``URLBuilder`` builds for these inputs.
    func url(path: String, base: URL?, queryPairs: [(String, String?)]) throws(CourierError) -> URL {
        var query: [String?] = []
        query.reserveCapacity(queryPairs.count * 2)
        for (name, value) in queryPairs {
            query.append(name)
            query.append(value)
        }
        let baseString = base.map { $0.absoluteString }
        let key = Key(Inputs(base: baseString, path: path, query: query))
        if let known = urls.withLockedValue({ $0[key] }) { return known }
        let url = try URLBuilder.url(path: path, baseString: baseString, queryPairs: queryPairs)
        urls.withLockedValue { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
        return url
    }
}
