import Testing

@testable import Courier

/// `WWW-Authenticate` parsing by RFC 9110 §11: lists of challenges, parameters, token68,
/// quoted strings with escapes, and junk that must not be misread.
@Suite("Challenge parser")
struct ChallengeParserTests {
    static let cases: [(String, [Challenge])] = [
        // One challenge, parameters, spacing and case.
        (#"Basic realm="x""#, [Challenge(scheme: "basic", parameters: ["realm": "x"])]),
        (#"DIGEST REALM="R", Nonce=abc"#, [Challenge(scheme: "digest", parameters: ["realm": "R", "nonce": "abc"])]),
        (#"Basic realm = "x""#, [Challenge(scheme: "basic", parameters: ["realm": "x"])]),
        ("Bearer", [Challenge(scheme: "bearer")]),
        (#"Basic realm="a", realm="b""#, [Challenge(scheme: "basic", parameters: ["realm": "a"])]),
        // Several challenges in one field; the example of RFC 9110 §11.6.1.
        (
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#,
            [
                Challenge(scheme: "newauth", parameters: ["realm": "apps", "type": "1", "title": #"Login to "apps""#]),
                Challenge(scheme: "basic", parameters: ["realm": "simple"]),
            ]
        ),
        (
            #"Basic realm="b", Digest realm="d", nonce="n", qop="auth,auth-int""#,
            [
                Challenge(scheme: "basic", parameters: ["realm": "b"]),
                Challenge(scheme: "digest", parameters: ["realm": "d", "nonce": "n", "qop": "auth,auth-int"]),
            ]
        ),
        (#"Bearer, Basic realm="r""#, [Challenge(scheme: "bearer"), Challenge(scheme: "basic", parameters: ["realm": "r"])]),
        (#" , ,Basic realm="x",, "#, [Challenge(scheme: "basic", parameters: ["realm": "x"])]),
        // token68.
        ("Negotiate a87421000492aa874209af8bc028", [Challenge(scheme: "negotiate", token68: "a87421000492aa874209af8bc028")]),
        (
            #"Foo YWxh/ZGRp+bjpv==, Basic realm="x""#,
            [Challenge(scheme: "foo", token68: "YWxh/ZGRp+bjpv=="), Challenge(scheme: "basic", parameters: ["realm": "x"])]
        ),
        ("Basic realm=", [Challenge(scheme: "basic", token68: "realm=")]),
        // Quoted strings: escapes, commas and equals signs inside.
        (#"Digest realm="a\\b\"c""#, [Challenge(scheme: "digest", parameters: ["realm": #"a\b"c"#])]),
        (#"Digest realm="x, y=z", nonce="n""#, [Challenge(scheme: "digest", parameters: ["realm": "x, y=z", "nonce": "n"])]),
        (#"Basic realm="ünïcode""#, [Challenge(scheme: "basic", parameters: ["realm": "ünïcode"])]),
        // Junk: a broken challenge is dropped, the others survive.
        (#"Basic realm="unterminated"#, []),
        (#"realm="stray", Basic realm="ok""#, [Challenge(scheme: "basic", parameters: ["realm": "ok"])]),
        (#"Basic realm="x" junk, Digest realm="d", nonce="n""#, [Challenge(scheme: "digest", parameters: ["realm": "d", "nonce": "n"])]),
        (#""quoted", Basic realm="ok""#, [Challenge(scheme: "basic", parameters: ["realm": "ok"])]),
        ("Basic realm=\"a\u{01}b\"", []),
        (#"Basic"x""#, []),
        (#"Digest realm=@@@, Basic realm="ok""#, [Challenge(scheme: "basic", parameters: ["realm": "ok"])]),
        ("", []),
        (",,,", []),
        ("=", []),
    ]

    @Test("One field", arguments: cases)
    func oneField(field: String, expected: [Challenge]) {
        #expect(Challenge.parse([field]) == expected)
    }

    @Test func challengesAcrossFieldsKeepTheirOrder() {
        let parsed = Challenge.parse([#"Basic realm="a""#, #"Digest realm="b", nonce="n", algorithm=SHA-256"#, "Bearer"])
        #expect(parsed.map(\.scheme) == ["basic", "digest", "bearer"])
        #expect(parsed[1]["Algorithm"] == "SHA-256")
    }

    @Test(
        "The strongest supported scheme wins",
        arguments: [
            (#"Basic realm="r", Digest realm="r", nonce="n", algorithm=MD5, Digest realm="r", nonce="m", algorithm=SHA-256"#, "digest SHA-256"),
            (#"Digest realm="r", nonce="n", algorithm=SHA-256-sess, Digest realm="r", nonce="m", algorithm=MD5-sess"#, "digest SHA-256-sess"),
            (#"Digest realm="r", nonce="n", Basic realm="r""#, "digest MD5"),
            (#"Digest realm="r", nonce="n", algorithm=SHA-512-256, Basic realm="r""#, "basic"),
            (#"Digest realm="r", nonce="n", qop="auth-conf", Basic realm="r""#, "basic"),
            (#"Digest realm="r", Basic realm="r""#, "basic"),
            (#"Bearer realm="r", Negotiate abc"#, "none"),
        ])
    func strongest(field: String, expected: String) {
        #expect(Authenticator.strongest(Challenge.parse([field]))?.name ?? "none" == expected)
    }
}
