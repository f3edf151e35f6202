/// Checks that what Courier is about to write is legal on the wire, so that no header or
/// request-line injection can ever reach a server.
enum WireValidation {
    /// `tchar` from RFC 9110 §5.6.2: letters, digits and `!#$%&'*+-.^_`|~`, looked up in two
    /// 64-bit masks (bit `b` of ``tokenBytesBelow64`` for byte `b`, of ``tokenBytesFrom64`` for
    /// byte `b + 64`), as every header name of every request is checked with it.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if byte < 64 { return tokenBytesBelow64 >> UInt64(byte) & 1 == 1 }
        if byte < 128 { return tokenBytesFrom64 >> UInt64(byte - 64) & 1 == 1 }
        return false
    }

    static var tokenBytesBelow64: UInt64 { 0x03FF_6CFA_0000_0000 }
    static var tokenBytesFrom64: UInt64 { 0x57FF_FFFF_C7FF_FFFE }

    /// Whether `text` is a token: not empty, and every byte a `tchar`.
    static func isToken(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty else { return false }
        if let result = bytes.withContiguousStorageIfAvailable({ $0.allSatisfy(isTokenByte) }) { return result }
        return bytes.allSatisfy(isTokenByte)
    }

    /// The first byte of `value` that a field value may not hold (a control character but
    /// HTAB, or DEL), if any.
    static func forbiddenValueByte(in value: String) -> UInt8? {
        func isForbidden(_ byte: UInt8) -> Bool { byte < 0x20 && byte != 0x09 || byte == 0x7F }
        let bytes = value.utf8
        if let found = bytes.withContiguousStorageIfAvailable({ $0.first(where: isForbidden) }) { return found }
        return bytes.first(where: isForbidden)
    }

    static func validateMethod(_ method: CourierHTTPMethod) throws(CourierError) {
        guard isToken(method.rawValue) else {
            throw CourierError(
                .invalidMethod,
                "The method \(quoted(method.rawValue)) is not an HTTP token; use letters such as GET or POST, without spaces or control characters."
            )
        }
    }

    static func validate(_ headers: Headers) throws(CourierError) {
        for field in headers {
            guard isToken(field.name) else {
                throw CourierError(
                    .invalidHeader,
                    "The header name \(quoted(field.name)) is not an HTTP token; remove spaces, colons and control characters (CR, LF, NUL) from it."
                )
            }
            // field-value = *( VCHAR / obs-text / SP / HTAB ); CR, LF and NUL never.
            if let byte = forbiddenValueByte(in: field.value) {
                throw CourierError(
                    .invalidHeader,
                    "The value of header \(quoted(field.name)) contains the control character 0x\(String(byte, radix: 16, uppercase: true)) (CR, LF and NUL would let it inject headers); remove it."
                )
            }
        }
    }

    /// Fields a request's trailers may not carry (RFC 9110 §6.5.1): what frames the message,
    /// routes it, modifies the request, authenticates it or says how to process the content,
    /// and HTTP/1.1's connection-specific fields, which HTTP/2 forbids.
    static let forbiddenTrailers: Set<String> = [
        "content-length", "transfer-encoding", "trailer", "te", "host", "connection", "keep-alive", "upgrade",
        "proxy-connection", "content-encoding", "content-type", "content-range", "authorization",
        "proxy-authorization", "cookie", "expect", "max-forwards", "cache-control", "pragma", "range", "if-match",
        "if-none-match", "if-modified-since", "if-unmodified-since", "if-range",
    ]

    /// Checks the trailer fields a request body ends with: each is legal on the wire and
    /// none is a field a trailer may not carry.
    static func validateTrailers(_ trailers: Headers) throws(CourierError) {
        try validate(trailers)
        for field in trailers where forbiddenTrailers.contains(field.name.lowercased()) {
            throw CourierError(
                .invalidHeader,
                "The trailer \(quoted(field.name)) is a field that frames, routes, authenticates or describes the message, which a trailer may not carry (RFC 9110 §6.5.1); send it as a header instead."
            )
        }
    }

    /// Renders a string with its control characters made visible.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\0": result += "\\0"
            case "\"": result += "\\\""
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

extension CourierRequest {
    /// Checks, without sending anything, what the client would refuse to write for this
    /// request: a method that is not an HTTP token, a header name that is not one, a header
    /// value with CR, LF, NUL or another control character. A caller holding many requests (a
    /// batch read from a file) can refuse a bad one before any of them is sent.
    ///
    /// - Throws: ``CourierError/Kind/invalidMethod`` or ``CourierError/Kind/invalidHeader``.
    public func validateFields() throws(CourierError) {
        try WireValidation.validateMethod(method)
        try WireValidation.validate(headers)
    }
}
