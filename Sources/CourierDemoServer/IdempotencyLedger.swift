import Foundation
import NIOConcurrencyHelpers

/// What a ``TestServer``'s `/idempotent` route has seen, per `Idempotency-Key`: how many
/// requests carried the key and how many times its effect was applied (at most once, as a
/// server that honours the key must).
///
/// Pass the same ledger to servers started one after another on the same port to count
/// across a server restart:
///
/// ```swift
/// let ledger = IdempotencyLedger()
/// let first = try await TestServer.start(ledger: ledger)
/// try await first.shutdown()
/// let second = try await TestServer.start(port: first.port, ledger: ledger)
/// ```
public final class IdempotencyLedger: Sendable {
    /// One key's history.
    public struct Entry: Sendable, Hashable {
        /// Requests that carried the key, replays and refusals included.
        public var requests: Int
        /// Times the effect was applied: 1 once the first request arrived.
        public var applied: Int
        /// The body of the request that applied it.
        public var body: Data
        /// The path of the request that applied it.
        public var path: String
        /// The order in which keys were first applied, from 1.
        public var order: Int
        /// Until when a request with the key counts as still being processed (answered 409).
        var busyUntil: Date
    }

    private let state = NIOLockedValueBox<[String: Entry]>([:])

    /// An empty ledger.
    public init() {}

    /// Every key seen, with its history.
    public var entries: [String: Entry] { state.withLockedValue { $0 } }

    /// The keys in the order they were first applied.
    public var appliedKeys: [String] { entries.sorted { $0.value.order < $1.value.order }.map(\.key) }

    /// Records `key` as applied by a request to `path` that is still being processed: requests
    /// with the key get 409 until ``release(key:)``. For tests of what a client does meanwhile.
    public func hold(key: String, path: String) {
        state.withLockedValue { entries in
            entries[key] = Entry(requests: 1, applied: 1, body: Data(), path: path, order: entries.count + 1, busyUntil: .distantFuture)
        }
    }

    /// Ends the processing of a key held by ``hold(key:path:)``: later requests get its answer.
    public func release(key: String) {
        state.withLockedValue { $0[key]?.busyUntil = .distantPast }
    }

    /// What to answer a request with `key`: whether it applied the effect now, or whether
    /// the first request with the key is still being processed.
    enum Verdict {
        case applied(Entry)
        case busy
        case replay(Entry)
    }

    /// Counts a request with `key`; applies it when the key is new, processing it for `delay`.
    func receive(key: String, path: String, body: Data, delay: TimeInterval) -> Verdict {
        let now = Date()
        return state.withLockedValue { entries in
            if var entry = entries[key] {
                entry.requests += 1
                entries[key] = entry
                return now < entry.busyUntil ? .busy : .replay(entry)
            }
            let entry = Entry(
                requests: 1, applied: 1, body: body, path: path, order: entries.count + 1, busyUntil: now.addingTimeInterval(delay)
            )
            entries[key] = entry
            return .applied(entry)
        }
    }
}
