import Courier
import Foundation

/// One request item written after the URL, in HTTPie's grammar: `Name:value` (a header),
/// `Name:` (no such header), `Name;` (an empty header), `name==value` (a query item),
/// `name=value` (a string field), `name:=JSON` (a raw JSON field), `name@PATH[;type=MIME]` (a
/// file), `name=@PATH` (a file's text as a string field) and `name:=@PATH` (a file's JSON).
///
/// The separator is the first one in the item, the longest where several start at the same
/// place; a backslash before `:`, `=`, `@` or `;` makes that character part of the name or the
/// value (`a\:b=c` is the field `a:b`). Parsing reads no file.
struct RequestItem: Equatable, Sendable {
    /// What an item stands for, named by its separator.
    enum Kind: Equatable, Sendable, CaseIterable {
        /// `Name:value`
        case header
        /// `Name:` with nothing after it: the request carries no `Name` header.
        case removedHeader
        /// `Name;`
        case emptyHeader
        /// `name==value`
        case query
        /// `name=value`
        case string
        /// `name:=JSON`
        case json
        /// `name@PATH[;type=MIME]`
        case file
        /// `name=@PATH`
        case stringFile
        /// `name:=@PATH`
        case jsonFile

        /// Whether the item is a field of the body.
        var isData: Bool {
            switch self {
            case .header, .removedHeader, .emptyHeader, .query: false
            case .string, .json, .file, .stringFile, .jsonFile: true
            }
        }
    }

    var kind: Kind
    /// The header, query or field name, escapes resolved.
    var name: String
    /// The value: the text, the JSON text, or the path.
    var value: String
    /// The MIME type a file item names after `;type=`.
    var contentType: String?
    /// The item as it was given, shortened and made printable, for messages.
    var label: String

    /// The separators, longest first, so that the first match at a place is the longest one.
    private static let separators: [(text: [Unicode.Scalar], kind: Kind)] = {
        let separators: [(String, Kind)] = [
            (":=@", .jsonFile), ("==", .query), (":=", .json), ("=@", .stringFile), ("=", .string), (":", .header), (";", .emptyHeader), ("@", .file),
        ]
        return separators.map { (Array($0.0.unicodeScalars), $0.1) }
    }()

    /// The characters a backslash escapes.
    private static let escapable: Set<Unicode.Scalar> = [":", "=", "@", ";"]

    /// The shapes an item may take, for messages.
    static let shapes = "Name:value, Name:, Name;, name==value, name=value, name:=JSON, name@PATH, name=@PATH or name:=@PATH"

    /// Parses one item; a malformed one is invalid input, named in the message.
    init(_ text: String) throws(CommandFailure) {
        let scalars = Array(text.unicodeScalars)
        label = Self.label(text)
        var name = String.UnicodeScalarView()
        var index = 0
        var found: (length: Int, kind: Kind)?
        while index < scalars.count {
            if scalars[index] == "\\", index + 1 < scalars.count, Self.escapable.contains(scalars[index + 1]) {
                name.append(scalars[index + 1])
                index += 2
                continue
            }
            if let separator = Self.separators.first(where: { Self.scalars(scalars, at: index, start: $0.text) }) {
                found = (separator.text.count, separator.kind)
                break
            }
            name.append(scalars[index])
            index += 1
        }
        guard let found else {
            throw CommandFailure(.invalidInput, "\(label) is not a request item; give \(Self.shapes)")
        }
        kind = found.kind
        self.name = String(name)
        value = Self.unescaped(scalars[(index + found.length)...])
        guard !self.name.isEmpty else { throw CommandFailure(.invalidInput, "request item \(label) has no name") }
        try check()
    }

    /// Checks the parts the kind constrains: a header's name and value, a JSON value, a path.
    private mutating func check() throws(CommandFailure) {
        switch kind {
        case .header, .emptyHeader:
            guard Self.isToken(name) else {
                throw CommandFailure(.invalidInput, "request item \(label): a header name is letters, digits and !#$%&'*+-.^_`|~ only")
            }
            value = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            if kind == .emptyHeader, !value.isEmpty {
                throw CommandFailure(.invalidInput, "request item \(label): for an empty header give Name; with nothing after it, for a header Name:value")
            }
            if kind == .header, value.isEmpty { kind = .removedHeader }
            guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
                throw CommandFailure(.invalidInput, "request item \(label): a header value cannot hold a control character (CR, LF, NUL and the like)")
            }
        case .json:
            try Self.checkJSON(value, label: label)
        case .file:
            if let range = value.range(of: ";type=") {
                contentType = String(value[range.upperBound...])
                value = String(value[..<range.lowerBound])
                guard Self.isMediaType(contentType ?? "") else {
                    throw CommandFailure(.invalidInput, "request item \(label): ;type= needs a MIME type such as text/plain")
                }
            }
            fallthrough
        case .stringFile, .jsonFile:
            guard !value.isEmpty else { throw CommandFailure(.invalidInput, "request item \(label) has no path") }
            // As in HTTPie: the shell leaves a `~` after `@` as it is.
            if value == "~" || value.hasPrefix("~/") { value = NSString(string: value).expandingTildeInPath }
        case .removedHeader, .query, .string:
            break
        }
    }

    /// Fails unless `text` is one JSON value (surrounding white space allowed).
    static func checkJSON(_ text: String, label: String) throws(CommandFailure) {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw CommandFailure(.invalidInput, "request item \(label): the value after := is not valid JSON (a number, true, false, null, a \"string\", an [array] or an {object})")
        }
    }

    /// Whether `scalars` holds `separator` at `index`.
    private static func scalars(_ scalars: [Unicode.Scalar], at index: Int, start separator: [Unicode.Scalar]) -> Bool {
        guard index + separator.count <= scalars.count else { return false }
        return scalars[index..<(index + separator.count)].elementsEqual(separator)
    }

    /// `scalars` with each escape replaced by the character it escapes.
    private static func unescaped(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            if scalars[index] == "\\", index + 1 < scalars.endIndex, escapable.contains(scalars[index + 1]) {
                index += 1
            }
            text.append(scalars[index])
            index += 1
        }
        return String(text)
    }

    /// Whether `text` is an HTTP token (RFC 9110 §5.6.2).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0)) }
    }

    /// Whether `text` is `type/subtype`, each a token.
    private static func isMediaType(_ text: String) -> Bool {
        let pieces = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        return pieces.count == 2 && pieces.allSatisfy { isToken(String($0)) }
    }

    /// The item for a message: at most 60 characters, control characters escaped.
    private static func label(_ text: String) -> String {
        let short = text.count > 60 ? text.prefix(57) + "…" : Substring(text)
        return "'" + PrintableText.escaping(String(short)) + "'"
    }
}
