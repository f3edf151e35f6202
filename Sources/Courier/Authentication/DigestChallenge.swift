import Foundation

/// A Digest challenge (RFC 7616 §3.3) Courier can answer.
struct DigestChallenge: Hashable, Sendable {
    var realm: String
    var nonce: String
    var opaque: String?
    var algorithm: DigestAlgorithm
    /// Whether the challenge named its algorithm; an answer names it only then, for servers
    /// of RFC 2069's time.
    var namesAlgorithm: Bool
    /// The qop values offered, lower-cased; empty for an RFC 2069 challenge without qop.
    var qopOptions: [String]
    /// Whether the server rejected the previous nonce only because it expired.
    var stale: Bool
    /// Whether the server wants the user name hashed.
    var userhash: Bool

    /// Reads a `Digest` challenge; `nil` when it lacks a realm or a nonce, names an algorithm
    /// Courier does not support, or offers only qop values it does not know.
    init?(_ challenge: Challenge) {
        guard challenge.scheme == "digest", let realm = challenge["realm"], let nonce = challenge["nonce"],
            let algorithm = DigestAlgorithm(parameter: challenge["algorithm"])
        else { return nil }
        self.realm = realm
        self.nonce = nonce
        self.opaque = challenge["opaque"]
        self.algorithm = algorithm
        self.namesAlgorithm = challenge["algorithm"] != nil
        self.qopOptions = FieldList.elements(challenge["qop"] ?? "").map { $0.lowercased() }
        self.stale = challenge["stale"]?.lowercased() == "true"
        self.userhash = challenge["userhash"]?.lowercased() == "true"
        if challenge["qop"] != nil, !qopOptions.contains("auth"), !qopOptions.contains("auth-int") { return nil }
    }

    /// The qop to answer with: `auth-int` when offered and the body can be hashed, else
    /// `auth`; `nil` for a challenge without qop. Throws when only `auth-int` is offered and
    /// the body is a stream.
    func qop(bodyIsHashable: Bool) -> Qop {
        if qopOptions.isEmpty { return .none }
        if qopOptions.contains("auth-int"), bodyIsHashable { return .authInt }
        if qopOptions.contains("auth") { return .auth }
        return .unanswerable
    }

    enum Qop: Equatable {
        case none, auth, authInt, unanswerable
    }

    /// Whether `other` continues the same nonce session (same server, same nonce).
    func sharesNonce(with other: DigestChallenge) -> Bool {
        realm == other.realm && nonce == other.nonce && algorithm == other.algorithm
    }
}
