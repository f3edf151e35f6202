import Foundation

/// The fields and files of a `multipart/form-data` body (RFC 7578), built up in order.
///
/// ```swift
/// var form = MultipartForm()
/// form.addField("Ada", named: "name")
/// form.addFile(at: URL(fileURLWithPath: "/tmp/portrait.png"), named: "avatar")
/// form.addData(Data("a,b\n".utf8), named: "table", filename: "table.csv")
/// request.body = try .multipart(form)
/// ```
///
/// Nothing is read when a file is added: ``CourierRequestBody/multipart(_:)`` measures the files, and
/// the request reads them in small pieces as it sends them.
public struct MultipartForm: Sendable {
    enum Content: Sendable {
        case text(String)
        case data(Data)
        case file(URL)
    }

    struct Part: Sendable {
        var name: String
        var filename: String?
        var contentType: String?
        var content: Content
    }

    /// The delimiter between parts, without the leading `--`.
    public let boundary: String
    private(set) var parts: [Part] = []

    /// A form whose boundary is 128 random bits from the system's secure generator, so that
    /// no content can guess it.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bits = (0..<2).map { _ in generator.next() as UInt64 }
        boundary =
            "courier-"
            + bits.map { word in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined()
    }

    /// A form with the boundary you choose, for output that is the same on every run (tests,
    /// fixtures). The boundary must not occur in any part's content.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` unless `boundary` has 1 to 70 characters,
    ///   each a letter, a digit or one of `'()+_,-./:=?`.
    public init(boundary: String) throws(CourierError) {
        let allowed = Set("'()+_,-./:=?".unicodeScalars)
        let isValid =
            (1...70).contains(boundary.unicodeScalars.count)
            && boundary.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || allowed.contains($0)) }
        guard isValid else {
            throw CourierError(.invalidBody, "The multipart boundary \"\(boundary)\" is not allowed; use 1 to 70 letters, digits or '()+_,-./:=? characters.")
        }
        self.boundary = boundary
    }

    /// The `Content-Type` of the body, with its boundary.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Appends a text field, sent as UTF-8.
    public mutating func addField(_ value: String, named name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .text(value)))
    }

    /// Appends a file from disk, read in pieces while the request is sent.
    ///
    /// - Parameters:
    ///   - url: the file's URL (a `file:` URL).
    ///   - name: the field name.
    ///   - filename: the name the server sees; by default the file's own name.
    ///   - contentType: the media type; by default guessed from the file name's extension
    ///     (`application/octet-stream` when it is unknown).
    public mutating func addFile(at url: URL, named name: String, filename: String? = nil, contentType: String? = nil) {
        let filename = filename ?? url.lastPathComponent
        let type = contentType ?? MediaTypes.type(forFilename: filename)
        parts.append(Part(name: name, filename: filename, contentType: type, content: .file(url)))
    }

    /// Appends bytes held in memory, as a file when `filename` is given.
    ///
    /// - Parameters:
    ///   - data: the part's content.
    ///   - name: the field name.
    ///   - filename: the name the server sees, or `nil` for none.
    ///   - contentType: the media type; by default guessed from `filename`'s extension, else
    ///     `application/octet-stream`.
    public mutating func addData(_ data: Data, named name: String, filename: String? = nil, contentType: String? = nil) {
        let type = contentType ?? filename.map(MediaTypes.type(forFilename:)) ?? MediaTypes.fallback
        parts.append(Part(name: name, filename: filename, contentType: type, content: .data(data)))
    }
}
