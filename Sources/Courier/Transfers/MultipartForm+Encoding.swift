import Foundation

extension MultipartForm {
    /// The `Content-Disposition` value of a part.
    ///
    /// Names and file names are sent as UTF-8 inside quotes, with `"`, CR and LF (and any
    /// other control character) percent-encoded as browsers do (`%22`, `%0D`, `%0A`). A file
    /// name with non-ASCII characters also gets `filename*` (RFC 8187), after an ASCII
    /// `filename` for servers that do not read it.
    static func disposition(name: String, filename: String?) -> String {
        var value = "form-data; name=\"\(quotedContent(name))\""
        guard let filename else { return value }
        if filename.unicodeScalars.allSatisfy(\.isASCII) {
            value += "; filename=\"\(quotedContent(filename))\""
        } else {
            value += "; filename=\"\(quotedContent(asciiFallback(filename)))\"; filename*=UTF-8''\(extendedValue(filename))"
        }
        return value
    }

    /// `text` with `"`, CR, LF, the other C0 controls and DEL percent-encoded, ready to go
    /// between quotes.
    static func quotedContent(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar.value < 0x20 || scalar.value == 0x7F {
                result += percentEscape(UInt8(scalar.value))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// An ASCII stand-in for `filename`: accents dropped (`é` → `e`), any other non-ASCII
    /// character replaced by `_`.
    static func asciiFallback(_ filename: String) -> String {
        var result = ""
        for scalar in filename.decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else if ![.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory) {
                result += "_"
            }
        }
        return result
    }

    /// The RFC 8187 value-chars of `text`: UTF-8, with every byte but an attr-char
    /// percent-encoded.
    static func extendedValue(_ text: String) -> String {
        let attributeCharacters = Set("!#$&+-.^_`|~".utf8)
        var result = ""
        for byte in text.utf8 {
            let isAlphanumeric = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if isAlphanumeric || attributeCharacters.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result += percentEscape(byte)
            }
        }
        return result
    }

    private static func percentEscape(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    /// The body as pieces to send in order: bytes held in memory and files read while sending.
    ///
    /// Files are measured now: their sizes make the body's length.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` when a file cannot be read or is not a
    ///   regular file, or when a content type would break the part's header.
    func segments() throws(CourierError) -> [MultipartSegment] {
        var segments: [MultipartSegment] = []
        var pending = Data()
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: \(Self.disposition(name: part.name, filename: part.filename))\r\n"
            if let type = part.contentType {
                guard !type.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw CourierError(.invalidBody, "The content type of multipart part \"\(part.name)\" contains a control character or line break; give a plain media type such as image/png.")
                }
                head += "Content-Type: \(type)\r\n"
            }
            pending.append(contentsOf: Array((head + "\r\n").utf8))
            switch part.content {
            case .text(let text):
                pending.append(contentsOf: Array(text.utf8))
            case .data(let data):
                pending.append(data)
            case .file(let url):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(url, size: try FileSnapshot.measure(url).size))
            }
            pending.append(contentsOf: Array("\r\n".utf8))
        }
        pending.append(contentsOf: Array("--\(boundary)--\r\n".utf8))
        segments.append(.bytes(pending))
        return segments
    }
}

/// A piece of a multipart body.
enum MultipartSegment: Sendable {
    /// Bytes held in memory.
    case bytes(Data)
    /// A file of the given size, read while the body is sent.
    case file(URL, size: Int64)

    var length: Int64 {
        switch self {
        case .bytes(let data): return Int64(data.count)
        case .file(_, let size): return size
        }
    }
}
