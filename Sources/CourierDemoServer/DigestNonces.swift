import NIOConcurrencyHelpers

/// The nonces a ``TestServer`` issued on its Digest routes, and what each has seen: the highest
/// nonce count used with it and how many requests it authenticated.
final class DigestNonces: Sendable {
    private struct Record {
        var highestCount = 0
        var successes = 0
    }

    private struct State {
        var records: [String: Record] = [:]
        var staleDeclared: [String: Int] = [:]
        var issued = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A new nonce: a serial number and 16 random bytes, as hex.
    func issue() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return state.withLockedValue { state in
            state.issued += 1
            let nonce = String(state.issued, radix: 16) + "-" + random.map { String($0, radix: 16) }.joined()
            state.records[nonce] = Record()
            return nonce
        }
    }

    /// What using `nonce` with nonce count `count` means.
    enum Use: Equatable {
        /// The server never issued the nonce, or retired it.
        case unknownNonce
        /// The count is not above every count already used with the nonce (a replay).
        case countNotIncreasing(highest: Int)
        /// Accepted; the nonce had authenticated this many requests before.
        case accepted(previousSuccesses: Int)
    }

    /// Records a verified use of `nonce` with `count` (nil when the client sent no qop, hence
    /// no count).
    func use(_ nonce: String, count: Int?) -> Use {
        state.withLockedValue { state in
            guard var record = state.records[nonce] else { return .unknownNonce }
            if let count {
                guard count > record.highestCount else { return .countNotIncreasing(highest: record.highestCount) }
                record.highestCount = count
            }
            let previous = record.successes
            record.successes += 1
            state.records[nonce] = record
            return .accepted(previousSuccesses: previous)
        }
    }

    /// Retires `nonce` as stale unless `key` already had `limit` stale declarations; says
    /// whether it did.
    func declareStale(_ nonce: String, key: String, limit: Int) -> Bool {
        state.withLockedValue { state in
            guard state.staleDeclared[key, default: 0] < limit else { return false }
            state.staleDeclared[key, default: 0] += 1
            state.records[nonce] = nil
            return true
        }
    }
}
