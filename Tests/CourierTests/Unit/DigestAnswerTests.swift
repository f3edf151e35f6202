import Foundation
import Testing

@testable import Courier

/// Digest answers checked against RFC 7616 §3.9.1, whose published example is the ground truth
/// (the test server's own check is independent code).
@Suite("Digest answers (RFC 7616)")
struct DigestAnswerTests {
    /// The challenge of RFC 7616 §3.9.1, with the algorithm left to the test.
    static func rfcChallenge(algorithm: String) throws -> DigestChallenge {
        let field = """
            Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=\(algorithm), \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """
        let challenge = try #require(Challenge.parse([field]).first)
        return try #require(DigestChallenge(challenge))
    }

    static func rfcAnswer(_ challenge: DigestChallenge) -> DigestAnswer {
        DigestAnswer(
            challenge: challenge, user: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
            body: nil, qop: .auth, nonceCount: 1, clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        )
    }

    @Test(
        "The example responses of RFC 7616 §3.9.1",
        arguments: [
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
            ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
        ])
    func rfcExample(algorithm: String, response: String) throws {
        let challenge = try Self.rfcChallenge(algorithm: algorithm)
        #expect(challenge.qopOptions == ["auth", "auth-int"])
        let answer = Self.rfcAnswer(challenge)
        #expect(answer.response == response)
        let expected = """
            Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=\(algorithm), \
            nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, \
            cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, response="\(response)", \
            opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
            """
        #expect(answer.authorization == expected)
    }

    @Test func everyInputChangesTheResponse() throws {
        let base = Self.rfcAnswer(try Self.rfcChallenge(algorithm: "SHA-256"))
        var variants: [DigestAnswer] = []
        var copy = base
        copy.nonceCount = 2
        variants.append(copy)
        copy = base
        copy.qop = .authInt
        variants.append(copy)
        copy = base
        copy.challenge.algorithm = .sha256Session
        variants.append(copy)
        copy = base
        copy.password = "Circle of life"
        variants.append(copy)
        copy = base
        copy.uri = "/dir/index.html?x"
        variants.append(copy)
        let responses = Set(variants.map(\.response) + [base.response])
        #expect(responses.count == variants.count + 1)
    }

    @Test func authIntHashesTheBody() throws {
        var answer = Self.rfcAnswer(try Self.rfcChallenge(algorithm: "MD5"))
        answer.qop = .authInt
        answer.body = Data("one".utf8)
        let one = answer.response
        answer.body = Data("two".utf8)
        #expect(answer.response != one)
        #expect(answer.authorization.contains("qop=auth-int"))
    }

    @Test func userNamesThatAQuotedStringCannotCarry() throws {
        var answer = Self.rfcAnswer(try Self.rfcChallenge(algorithm: "SHA-256"))
        answer.user = #"J"ason\Doe"#
        #expect(answer.authorization.hasPrefix(#"Digest username="J\"ason\\Doe", "#))
        answer.user = "Jäsøn Doe"
        #expect(answer.authorization.hasPrefix("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "))
        answer.challenge.userhash = true
        answer.user = "Mufasa"
        let hashed = DigestAlgorithm.sha256.hash("Mufasa:http-auth@example.org")
        #expect(answer.authorization.hasPrefix("Digest username=\"\(hashed)\", "))
        #expect(answer.authorization.hasSuffix(", userhash=true"))
    }

    @Test func aChallengeWithoutQopGetsAnRFC2069Answer() throws {
        let challenge = try #require(DigestChallenge(Challenge(scheme: "digest", parameters: ["realm": "r", "nonce": "n"])))
        #expect(challenge.qop(bodyIsHashable: true) == DigestChallenge.Qop.none)
        var answer = Self.rfcAnswer(challenge)
        answer.qop = .none
        let md5 = DigestAlgorithm.md5
        let expected = md5.hash("\(md5.hash("Mufasa:r:Circle of Life")):n:\(md5.hash("GET:/dir/index.html"))")
        #expect(answer.response == expected)
        #expect(!answer.authorization.contains("nc="))
        #expect(!answer.authorization.contains("algorithm="))
    }

    @Test func qopChoice() throws {
        let both = try Self.rfcChallenge(algorithm: "MD5")
        #expect(both.qop(bodyIsHashable: true) == .authInt)
        #expect(both.qop(bodyIsHashable: false) == .auth)
        var onlyIntegrity = both
        onlyIntegrity.qopOptions = ["auth-int"]
        #expect(onlyIntegrity.qop(bodyIsHashable: false) == .unanswerable)
    }

    @Test func clientNoncesAreFreshAndLong() {
        let nonces = (0..<32).map { _ in DigestAnswer.makeClientNonce() }
        #expect(Set(nonces).count == nonces.count)
        #expect(nonces.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }
}
