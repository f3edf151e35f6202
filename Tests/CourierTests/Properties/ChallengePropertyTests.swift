import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("Property: WWW-Authenticate challenges")
struct ChallengePropertyTests {
    static let samples = [
        "Basic realm=\"simple\"", "Bearer", "Negotiate YIIFdw==", "Digest realm=\"a, b\", nonce=\"n\\\"1\", qop=\"auth,auth-int\", algorithm=SHA-256",
        "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\"",
        "Digest realm=x, nonce=y, stale=TRUE, userhash=true, opaque=\"o\"", "Bearer error=\"invalid_token\", , Basic",
    ]
    static let alphabet = "BasicDigestBearer realm=nonce\"\\, qopauth=-._~+/"

    static let token = Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~"))
        .map { $0! }.string(of: 1...10)
    static let token68 = zip(
        Gen<Character?>.element(of: Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/")).map { $0! }.string(of: 1...16),
        Gen<Int>.value(in: 0...2)
    ).map { $0 + String(repeating: "=", count: $1) }

    @Test("any field value reads without trapping; every challenge read has a lower-cased token scheme, and Digest reads what it can")
    func parsesSafely() async {
        await propertyCheck(count: Property.cases(2000), input: Property.hostile(Self.samples, favouring: Self.alphabet)) { text in
            for challenge in Challenge.parse([text, text + ", " + text]) {
                #expect(!challenge.scheme.isEmpty)
                #expect(challenge.scheme == challenge.scheme.lowercased())
                #expect(challenge.scheme.utf8.allSatisfy(WireValidation.isTokenByte))
                #expect(challenge.parameters.keys.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty })
                #expect(challenge.token68 == nil || challenge.parameters.isEmpty)
                if let digest = DigestChallenge(challenge) {
                    _ = digest.qop(bodyIsHashable: true)
                    #expect(digest.qopOptions.allSatisfy { $0 == $0.lowercased() })
                }
            }
        }
    }

    @Test("challenges written with a token68 or with token and quoted parameters read back as written")
    func roundTrip() async {
        // A parameter value is a token, or any printable text written as a quoted string.
        let value = zip(Gen<Bool>.bool, Self.token, Property.printable(upTo: 20)).map { $0.0 ? $0.1 : $0.2 }
        let parameters = zip(Self.token, value).array(of: 0...4)
        let challenge = zip(Self.token, Self.token68.optional, parameters)
        await propertyCheck(count: Property.cases(2000), input: challenge.array(of: 1...4)) { challenges in
            var written: [String] = []
            var expected: [Challenge] = []
            for (scheme, token68, parameters) in challenges {
                if let token68 {
                    written.append("\(scheme) \(token68)")
                    expected.append(Challenge(scheme: scheme, token68: token68))
                    continue
                }
                let fields = parameters.map { name, value in
                    let isToken = !value.isEmpty && value.utf8.allSatisfy(WireValidation.isTokenByte)
                    return "\(name)=" + (isToken ? value : FieldPropertyTests.quoted(value))
                }
                written.append(fields.isEmpty ? scheme : "\(scheme) " + fields.joined(separator: ", "))
                var read: [String: String] = [:]
                for (name, value) in parameters where read[name.lowercased()] == nil { read[name.lowercased()] = value }
                expected.append(Challenge(scheme: scheme, parameters: read))
            }
            let text = written.joined(separator: ", ")
            #expect(Challenge.parse([text]) == expected, "\(text)")
        }
    }
}
