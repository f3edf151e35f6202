import Foundation

/// The file a ``CookieJar`` is read from and saved to, in either ``CookieFileFormat``: JSON,
/// `{"format": 1, "cookies": [...]}`, or Netscape. It is written with mode 0600 next to its
/// destination and renamed over it, so that a reader sees the old file or the new one, never
/// half of one, and no other user can read the cookies.
enum CookieFile {
    private struct Contents: Codable {
        var format: Int
        var cookies: [CourierCookie]
    }

    static let format = 1
    /// The largest cookie file read: 4 MiB, far more than the jar's 3,000 cookies take.
    static let maximumSize = 4 << 20

    /// The cookies saved in the JSON file `file`; none when it does not exist.
    static func load(from file: URL) throws(CourierError) -> [CourierCookie] {
        guard let data = try contents(of: file) else { return [] }
        return try decodeJSON(data, from: file)
    }

    /// The cookies saved in `file`, JSON or Netscape, whichever its contents are, that have
    /// not expired at `now`; none when it does not exist.
    static func loadAnyFormat(from file: URL, now: Date) throws(CourierError) -> [CourierCookie] {
        guard let data = try contents(of: file) else { return [] }
        switch CookieFileFormat.of(data) {
        case .json: return try decodeJSON(data, from: file).filter { !$0.isExpired(at: now) }
        case .netscape: return NetscapeCookieFormat.cookies(in: data, now: now)
        }
    }

    /// The bytes of `file`, or `nil` when it does not exist.
    private static func contents(of file: URL) throws(CourierError) -> Data? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            // Opened without waiting: a FIFO in the file's place is refused, not waited on.
            return try POSIXFiles.contentsOfRegularFile(file.path, limit: maximumSize)
        } catch {
            throw failure("read", file, error)
        }
    }

    private static func decodeJSON(_ data: Data, from file: URL) throws(CourierError) -> [CourierCookie] {
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            let contents = try decoder.decode(Contents.self, from: data)
            guard contents.format == format else {
                throw CourierError(.cookieStorage, "The cookie file \(file.path) has format \(contents.format), which this version cannot read; delete it or use the version that wrote it.")
            }
            return contents.cookies
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(.cookieStorage, "The file \(file.path) is not a cookie file (\(error)); give another path, or delete it.", underlyingError: error)
        }
    }

    /// Writes `cookies` to `file` in `format`, replacing it atomically; the file has mode 0600.
    static func save(_ cookies: [CourierCookie], to file: URL, format: CookieFileFormat) throws(CourierError) {
        switch format {
        case .json: try save(cookies, to: file)
        case .netscape: try replace(file, with: Data(NetscapeCookieFormat.text(for: cookies).utf8))
        }
    }

    /// Writes `cookies` to `file`, replacing it atomically; the file has mode 0600.
    static func save(_ cookies: [CourierCookie], to file: URL) throws(CourierError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Contents(format: format, cookies: cookies))
        } catch {
            throw failure("encode", file, error)
        }
        try replace(file, with: data)
    }

    /// Writes `data` to a new file with mode 0600 beside `file`, flushes it and renames it over
    /// `file`.
    private static func replace(_ file: URL, with data: Data) throws(CourierError) {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary, nil) }
        var written = 0
        var failed = false
        data.withUnsafeBytes { bytes in
            // Each call writes at least one byte or counts as a failure: at most data.count calls.
            var calls = 0
            while written < bytes.count, !failed, calls <= bytes.count {
                calls += 1
                let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count > 0 { written += count } else if count == 0 || errno != EINTR { failed = true }
            }
            failed = failed || written < bytes.count
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard !failed, synced, rename(temporary.path, file.path) == 0 else {
            let error = failure("write", file, nil)
            unlink(temporary.path)
            throw error
        }
    }

    private static func failure(_ action: String, _ file: URL, _ error: (any Error)?) -> CourierError {
        let reason = error.map { "\($0)" } ?? String(cString: strerror(errno))
        let advice = action == "read" ? "give a regular cookie file of at most \(maximumSize) bytes" : "check that its folder exists and is writable"
        return CourierError(.cookieStorage, "Could not \(action) the cookie file \(file.path) (\(reason)); \(advice).", underlyingError: error)
    }
}
