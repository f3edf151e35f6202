import Foundation

/// The formats of the files a ``CookieJar`` reads and writes.
public enum CookieFileFormat: Sendable, Hashable {
    /// Courier's JSON file, `{"format": 1, "cookies": [...]}`, with every attribute a
    /// ``CourierCookie`` has. ``CookieJar/save()`` writes only the cookies that have an expiry date.
    case json
    /// The Netscape cookie file curl and wget read and write (see ``NetscapeCookieFormat``).
    /// ``CookieJar/save()`` writes every cookie, session cookies included, as curl does, so
    /// that a session survives from one command to the next.
    case netscape

    /// The format of a file's contents: JSON when the first character that is not white
    /// space is `{`, else Netscape.
    static func of(_ data: Data) -> CookieFileFormat {
        let first = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") ? .json : .netscape
    }
}
