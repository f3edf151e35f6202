import Foundation

/// Makes a server-suggested file name safe to create inside a chosen folder.
///
/// Only the last component counts (the text after the last `/` or `\`), so `../../x` becomes
/// `x`; leading dots and dashes are dropped, so the file is never hidden, never `.` or `..`,
/// and never taken for an option when a shell command names it; a name longer than 255 UTF-8
/// bytes is cut to 255, keeping its extension (up to 16 bytes) and whole characters. A name
/// with NUL or another control character, or a bidirectional control (which can make
/// `evil\u{202E}txt.exe` read as `evilexe.txt`; see ``PrintableText``), or that is empty after
/// this, is refused with ``CourierError/Kind/invalidDestination``. Percent-encoding in a plain
/// `filename` is not decoded: `%2e%2e%2f` stays a harmless literal name.
public enum DownloadFileName {
    /// The most bytes a file name may have on common file systems.
    static let maximumBytes = 255

    /// The safe form of `suggested`.
    public static func sanitized(_ suggested: String) throws(CourierError) -> String {
        if suggested.unicodeScalars.contains(where: PrintableText.needsEscaping) {
            throw CourierError(
                .invalidDestination,
                "The server's file name \"\(suggested)\" holds a control character, NUL or a bidirectional control; download to an explicit path instead of a folder."
            )
        }
        // Split by scalar: a separator followed by a combining mark is not the Character "/",
        // but it still separates.
        let components = suggested.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" })
        var name = Substring(components.last ?? Substring.UnicodeScalarView()).trimmingCharacters(in: .whitespaces)
        // By scalar: a dot (or dash) with a combining mark after it is not the Character ".",
        // but it still makes the file hidden (or read as an option).
        while name.unicodeScalars.first == "." || name.unicodeScalars.first == "-" {
            name = String(name.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        guard !name.isEmpty else {
            throw CourierError(
                .invalidDestination,
                "The server's file name \"\(suggested)\" leaves nothing usable once its path and leading dots and dashes are removed; download to an explicit path instead."
            )
        }
        // A cut can end on a space (or an invisible one): the name must read the same when
        // it is made safe again.
        let safe = shortened(name).trimmingCharacters(in: .whitespaces)
        guard !safe.isEmpty else {
            throw CourierError(
                .invalidDestination,
                "The server's file name \"\(suggested)\" leaves nothing usable once cut to \(maximumBytes) bytes; download to an explicit path instead."
            )
        }
        return safe
    }

    /// `name` cut to ``maximumBytes`` UTF-8 bytes at a character boundary, its extension kept
    /// when it has one of at most 16 bytes.
    static func shortened(_ name: String) -> String {
        guard name.utf8.count > maximumBytes else { return name }
        var stem = Substring(name)
        var suffix = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8[dot...].count <= 16 {
            stem = name[..<dot]
            suffix = String(name[dot...])
        }
        let kept = prefix(of: stem, bytes: maximumBytes - suffix.utf8.count)
        guard kept.isEmpty else { return kept + suffix }
        // A stem of one enormous character: give up the extension rather than the name, and
        // cut inside the character (between scalars) when it alone is too long.
        let whole = prefix(of: Substring(name), bytes: maximumBytes)
        return whole.isEmpty ? scalarPrefix(of: name, bytes: maximumBytes) : whole
    }

    /// The longest run of whole characters from the start of `text` within `bytes` UTF-8 bytes.
    private static func prefix(of text: Substring, bytes: Int) -> String {
        var kept = ""
        for character in text {
            guard kept.utf8.count + character.utf8.count <= bytes else { break }
            kept.append(character)
        }
        return kept
    }

    /// The longest run of scalars from the start of `text` within `bytes` UTF-8 bytes.
    private static func scalarPrefix(of text: String, bytes: Int) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in text.unicodeScalars {
            count += UTF8.width(scalar)
            guard count <= bytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    /// The name for a download into a folder: the server's from `Content-Disposition`, else
    /// the last segment of the URL's path, else `download`.
    public static func name(contentDisposition: String?, url: URL) throws(CourierError) -> String {
        if let field = contentDisposition, let suggested = ContentDisposition.fileName(in: field) {
            return try sanitized(suggested)
        }
        let segment = url.lastPathComponent
        guard !segment.isEmpty, segment != "/" else { return "download" }
        return (try? sanitized(segment)) ?? "download"
    }
}
