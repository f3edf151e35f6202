import Foundation

/// One answer to a Digest challenge (RFC 7616 §3.4): the `response` hash and the
/// `Authorization` value that carries it. A pure value, so that the RFC's example vectors can
/// check it.
struct DigestAnswer: Sendable {
    var challenge: DigestChallenge
    var user: String
    var password: String
    var method: String
    /// The request target exactly as sent: path and query.
    var uri: String
    /// The body, hashed for `auth-int`.
    var body: Data?
    var qop: DigestChallenge.Qop
    var nonceCount: UInt32
    var clientNonce: String

    /// The `response` parameter: lower-case hex.
    var response: String {
        let algorithm = challenge.algorithm
        var ha1 = algorithm.hash("\(user):\(challenge.realm):\(password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(challenge.nonce):\(clientNonce)") }
        var a2 = "\(method):\(uri)"
        if qop == .authInt { a2 += ":" + algorithm.hash(body ?? Data()) }
        let ha2 = algorithm.hash(a2)
        guard let qopName else { return algorithm.hash("\(ha1):\(challenge.nonce):\(ha2)") }
        return algorithm.hash("\(ha1):\(challenge.nonce):\(nonceCountText):\(clientNonce):\(qopName):\(ha2)")
    }

    /// The `Authorization` field value.
    var authorization: String {
        var parts: [String] = []
        if challenge.userhash {
            parts.append("username=" + DigestAnswer.quoted(challenge.algorithm.hash("\(user):\(challenge.realm)")))
        } else if user.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            parts.append("username=" + DigestAnswer.quoted(user))
        } else {
            // RFC 7616 §3.4.4: a name that a quoted string cannot carry goes as an RFC 8187 ext-value.
            parts.append("username*=UTF-8''" + PercentEncoding.encodeQueryComponent(user))
        }
        parts.append("realm=" + DigestAnswer.quoted(challenge.realm))
        parts.append("uri=" + DigestAnswer.quoted(uri))
        if challenge.namesAlgorithm { parts.append("algorithm=" + challenge.algorithm.rawValue) }
        parts.append("nonce=" + DigestAnswer.quoted(challenge.nonce))
        if let qopName {
            parts.append("nc=" + nonceCountText)
            parts.append("cnonce=" + DigestAnswer.quoted(clientNonce))
            parts.append("qop=" + qopName)
        }
        parts.append("response=" + DigestAnswer.quoted(response))
        if let opaque = challenge.opaque { parts.append("opaque=" + DigestAnswer.quoted(opaque)) }
        if challenge.userhash { parts.append("userhash=true") }
        return "Digest " + parts.joined(separator: ", ")
    }

    private var qopName: String? {
        switch qop {
        case .auth: return "auth"
        case .authInt: return "auth-int"
        case .none, .unanswerable: return nil
        }
    }

    /// `nc`: eight lower-case hex digits.
    private var nonceCountText: String {
        let digits = String(nonceCount, radix: 16)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// A quoted string with `"` and `\` escaped.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }

    /// A client nonce: 16 bytes from the system's cryptographically secure generator, as hex.
    static func makeClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }.hexadecimal
    }
}
