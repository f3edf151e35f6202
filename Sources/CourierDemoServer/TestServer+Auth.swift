import Crypto
import NIOHTTP1

/// The authentication routes of ``TestServer``: Digest (RFC 7616) and bearer tokens.
///
/// The Digest check is written here on its own, from the RFC, and shares no code with
/// Courier's client, so that a test passing means the two agree on the RFC, not on a helper.
extension TestServerRoutes {
    static let digestRealm = "courier-test@127.0.0.1"
    static let digestOpaque = "5ccc069c403ebaf9f0171e9517f40e41"

    /// `/digest-auth/QOP/USER/PASS[/ALGORITHM]?stale_after=N&stale_times=M&offer=weaker`:
    /// Digest authentication. QOP is `auth`, `auth-int` or `auth,auth-int`; ALGORITHM is `MD5`
    /// (the default), `MD5-sess`, `SHA-256` or `SHA-256-sess`. Answers 200 with
    /// `{"authenticated", "user", "qop", "nc"}` when the `Authorization` is right: the user
    /// name, realm, request target, algorithm, qop, opaque and response all check out, the nonce
    /// is one this server issued, and `nc` is above every count used with that nonce. Otherwise
    /// an empty 401 with a new challenge and the reason in `X-Digest-Error`. With
    /// `stale_after=N`, a nonce that already authenticated N requests is declared stale
    /// (`stale=true`, new nonce) although the answer was right, M times per URL (once by
    /// default). With `offer=weaker`, the 401 also offers Basic and an MD5 Digest, in a second
    /// field, which are never accepted.
    static func digestAuth(_ request: TestRequest, _ rest: [String]) -> TestResponse {
        let qop = rest[0]
        let user = rest[1]
        let password = rest[2]
        let algorithmName = rest.count > 3 ? rest[3] : "MD5"
        guard ["auth", "auth-int", "auth,auth-int"].contains(qop),
            let algorithm = ServerDigestAlgorithm(rawValue: algorithmName)
        else {
            return .error(.badRequest, "unsupported qop \(qop) or algorithm \(algorithmName)")
        }
        func challenge(_ reason: String, stale: Bool = false) -> TestResponse {
            var value = "Digest realm=\"\(digestRealm)\", qop=\"\(qop)\", nonce=\"\(request.nonces.issue())\", "
            value += "opaque=\"\(digestOpaque)\", algorithm=\(algorithm.rawValue)"
            if stale { value += ", stale=TRUE" }
            var headers = HTTPHeaders()
            if request.queryValue("offer") == "weaker" {
                headers.add(name: "WWW-Authenticate", value: "Basic realm=\"\(digestRealm)\", \(value)")
                headers.add(name: "WWW-Authenticate", value: "Digest realm=\"\(digestRealm)\", nonce=\"\(request.nonces.issue())\", algorithm=MD5, qop=\"auth\"")
            } else {
                headers.add(name: "WWW-Authenticate", value: value)
            }
            headers.add(name: "X-Digest-Error", value: reason)
            return TestResponse(status: .unauthorized, headers: headers)
        }
        guard let authorization = request.header("Authorization"), authorization.lowercased().hasPrefix("digest ") else {
            return challenge("no Digest credentials")
        }
        let fields = authParameters(authorization.dropFirst("digest ".count))
        guard let nonce = fields["nonce"], let response = fields["response"], let uri = fields["uri"] else {
            return challenge("nonce, uri or response missing")
        }
        var claimedUser = fields["username"]
        if let extended = fields["username*"], extended.lowercased().hasPrefix("utf-8''") {
            claimedUser = URLEncoding.percentDecode(String(extended.dropFirst(7)))
        }
        if fields["userhash"] == "true" {
            claimedUser = claimedUser == algorithm.hex(Array("\(user):\(digestRealm)".utf8)) ? user : nil
        }
        guard claimedUser == user else { return challenge("unknown user") }
        guard fields["realm"] == digestRealm, fields["opaque"] == digestOpaque else { return challenge("realm or opaque not echoed") }
        guard uri == request.head.uri else { return challenge("uri \(uri) is not the request target \(request.head.uri)") }
        guard fields["algorithm"]?.lowercased() == algorithm.rawValue.lowercased() else { return challenge("algorithm not echoed") }
        guard let usedQop = fields["qop"], qop.split(separator: ",").contains(Substring(usedQop)),
            let ncText = fields["nc"], ncText.count == 8, let nc = Int(ncText, radix: 16), let cnonce = fields["cnonce"]
        else { return challenge("qop, nc or cnonce missing or not offered") }

        // RFC 7616 §3.4.1–3.4.3, computed from the server's own copy of the password.
        var secret = algorithm.hex(Array("\(user):\(digestRealm):\(password)".utf8))
        if algorithm.isSession { secret = algorithm.hex(Array("\(secret):\(nonce):\(cnonce)".utf8)) }
        var target = "\(request.method):\(uri)"
        if usedQop == "auth-int" { target += ":" + algorithm.hex(request.body) }
        let expected = algorithm.hex(Array("\(secret):\(nonce):\(ncText):\(cnonce):\(usedQop):\(algorithm.hex(Array(target.utf8)))".utf8))
        guard response == expected else { return challenge("wrong response") }

        switch request.nonces.use(nonce, count: nc) {
        case .unknownNonce:
            return challenge("unknown nonce")
        case .countNotIncreasing(let highest):
            return challenge("nc \(nc) is not above \(highest)")
        case .accepted(let previous):
            if let limit = request.queryValue("stale_after").flatMap({ Int($0) }), previous >= limit,
                request.nonces.declareStale(nonce, key: request.head.uri, limit: request.queryValue("stale_times").flatMap { Int($0) } ?? 1)
            {
                return challenge("nonce expired", stale: true)
            }
        }
        return .json(
            .object([
                ("authenticated", .bool(true)), ("user", .string(user)), ("qop", .string(usedQop)), ("nc", .int(Int64(nc))),
            ]))
    }

    /// `/bearer?token=T`: 200 when `Authorization: Bearer T`, else 401 with an
    /// `invalid_token` challenge. Without `token`, any bearer token is accepted.
    static func bearerToken(_ request: TestRequest) -> TestResponse {
        guard let expected = request.queryValue("token") else { return bearer(request) }
        guard request.header("Authorization") == "Bearer " + expected else {
            return TestResponse(
                status: .unauthorized,
                headers: ["WWW-Authenticate": "Bearer realm=\"courier-test\", error=\"invalid_token\""]
            )
        }
        return .json(.object([("authenticated", .bool(true)), ("token", .string(expected))]))
    }

    /// The `name=value` pairs of a credentials field, names lower-cased, quoted values
    /// unescaped, other values trimmed.
    static func authParameters(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var name = ""
        var value = ""
        var readingValue = false
        var quoted = false
        var closed = false
        var escaped = false
        func finish() {
            let key = name[...].trimmingSpaces().lowercased()
            if !key.isEmpty, result[key] == nil { result[key] = closed ? value : String(value[...].trimmingSpaces()) }
            (name, value, readingValue, closed) = ("", "", false, false)
        }
        for character in text {
            if escaped {
                value.append(character)
                escaped = false
            } else if quoted {
                switch character {
                case "\\": escaped = true
                case "\"": (quoted, closed) = (false, true)
                default: value.append(character)
                }
            } else if character == "," {
                finish()
            } else if !readingValue {
                if character == "=" { readingValue = true } else { name.append(character) }
            } else if character == "\"", value.allSatisfy({ $0 == " " || $0 == "\t" }), !closed {
                value = ""
                quoted = true
            } else if !closed {
                value.append(character)
            }
        }
        finish()
        return result
    }
}

/// The Digest algorithms the test server checks.
enum ServerDigestAlgorithm: String {
    case md5 = "MD5"
    case md5Sess = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Sess = "SHA-256-sess"

    var isSession: Bool { self == .md5Sess || self == .sha256Sess }

    /// The digest of `bytes` in lower-case hex.
    func hex(_ bytes: [UInt8]) -> String {
        let digest: [UInt8] = self == .md5 || self == .md5Sess ? Array(Insecure.MD5.hash(data: bytes)) : Array(SHA256.hash(data: bytes))
        return digest.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
