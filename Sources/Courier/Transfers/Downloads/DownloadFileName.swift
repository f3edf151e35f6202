import Foundation

/// Makes a server-suggested file name safe to create inside a chosen folder.
///
/// Only the last component counts (the text after the last `/` or `\`), so `../../x` becomes
/// `x`; leading dots are dropped, so the file is never hidden and never `.` or `..`; a name
/// with NUL or another control character, or that is empty or longer than 255 bytes after
/// this, is refused with ``CourierError/Kind/invalidDestination``. Percent-encoding in a
/// plain `filename` is not decoded: `%2e%2e%2f` stays a harmless literal name.
enum DownloadFileName {
    /// The safe form of `suggested`.
    static func sanitized(_ suggested: String) throws(CourierError) -> String {
        if suggested.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw CourierError(
                .invalidDestination,
                "The server's file name holds a control character or NUL; download to an explicit path instead of a folder."
            )
        }
        // Split by scalar: a separator followed by a combining mark is not the Character "/",
        // but it still separates.
        let components = suggested.unicodeScalars.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" })
        var name = Substring(components.last ?? Substring.UnicodeScalarView()).trimmingCharacters(in: .whitespaces)
        // By scalar: a dot with a combining mark after it is not the Character ".", but it
        // still makes the file hidden.
        while name.unicodeScalars.first == "." {
            name = String(name.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        guard !name.isEmpty else {
            throw CourierError(
                .invalidDestination,
                "The server's file name \"\(suggested)\" leaves nothing usable once its path and leading dots are removed; download to an explicit path instead."
            )
        }
        guard name.utf8.count <= 255 else {
            throw CourierError(
                .invalidDestination,
                "The server's file name is longer than 255 bytes; download to an explicit path instead."
            )
        }
        return name
    }

    /// The name for a download into a folder: the server's from `Content-Disposition`, else
    /// the last segment of the URL's path, else `download`.
    static func name(contentDisposition: String?, url: URL) throws(CourierError) -> String {
        if let field = contentDisposition, let suggested = ContentDisposition.fileName(in: field) {
            return try sanitized(suggested)
        }
        let segment = url.lastPathComponent
        guard !segment.isEmpty, segment != "/" else { return "download" }
        return (try? sanitized(segment)) ?? "download"
    }
}
