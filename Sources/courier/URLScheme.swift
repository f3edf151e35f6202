import Foundation

/// The scheme of a URL given on the command line, checked before anything else about it.
enum URLScheme {
    /// Refuses `text` when it names a scheme other than http or https (`ftp://…`), with curl's
    /// status for an unsupported protocol; a path, or text with no `scheme://`, passes.
    static func check(_ text: String, naming name: String? = nil) throws(CommandFailure) {
        guard let scheme = scheme(of: text), scheme != "http", scheme != "https" else { return }
        let what = name.map { "\($0): " } ?? ""
        throw CommandFailure(.unsupportedProtocol, "\(what)\(scheme):// is not a protocol courier speaks; give an http or https URL")
    }

    /// The lower-cased scheme of `text` when it starts with `scheme://`.
    static func scheme(of text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        guard let first = scheme.unicodeScalars.first, isLetter(first),
            scheme.unicodeScalars.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        return scheme.lowercased()
    }
}
