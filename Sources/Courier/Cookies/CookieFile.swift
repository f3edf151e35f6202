import Foundation

/// The JSON file a ``CookieJar`` is saved to: `{"format": 1, "cookies": [...]}`, created with
/// mode 0600 next to its destination and renamed over it, so that a reader sees the old file
/// or the new one, never half of one, and no other user can read the cookies.
enum CookieFile {
    private struct Contents: Codable {
        var format: Int
        var cookies: [Cookie]
    }

    static let format = 1

    /// The cookies saved in `file`; none when it does not exist.
    static func load(from file: URL) throws(CourierError) -> [Cookie] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        let data: Data
        do {
            // Opened without waiting: a FIFO in the file's place is refused, not waited on.
            data = try POSIXFiles.contentsOfRegularFile(file.path)
        } catch {
            throw failure("read", file, error)
        }
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

    /// Writes `cookies` to `file`, replacing it atomically; the file has mode 0600.
    static func save(_ cookies: [Cookie], to file: URL) throws(CourierError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(Contents(format: format, cookies: cookies))
        } catch {
            throw failure("encode", file, error)
        }
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
        return CourierError(
            .cookieStorage,
            "Could not \(action) the cookie file \(file.path) (\(reason)); check that its folder exists and is writable.",
            underlyingError: error
        )
    }
}
