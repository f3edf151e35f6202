import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The downloads a background session has finished, kept in a folder of the app's own until
/// the client reads them: each is a body file and a head file named by the download's key.
///
/// The session hands over a finished download in a temporary file that it deletes as soon as
/// its delegate returns, whether or not the app is still waiting for it: after a relaunch, the
/// task that asked is gone. The ledger moves the file into its folder at once, so that the next
/// download of the same request, in this process or the next, is answered from it instead of
/// being sent again. A result is read once and then deleted.
///
/// The folder is the owner's alone (0700), its files 0600. A head keeps the status and the
/// header fields, without `Set-Cookie`: no session cookie reaches the disk. A head that cannot
/// be read, or a body missing beside it, is deleted and the download sent again; results older
/// than ``maximumAge`` are deleted when a ledger opens.
final class DownloadLedger: Sendable {
    /// A finished download: the response's head and the file that holds its body.
    struct Entry: Sendable {
        var head: Head
        var body: URL
    }

    /// What is kept of a response's head.
    struct Head: Codable, Sendable {
        var status: Int
        /// Name and value pairs, in the order the response gave them.
        var fields: [[String]]
        var finishedAt: Date
    }

    let folder: URL

    /// Results older than this are deleted when a ledger opens.
    static let maximumAge: TimeInterval = 7 * 24 * 60 * 60
    /// The largest head file read.
    static let maximumHeadBytes = 1 << 20

    /// Opens the ledger in `folder`, creating it (mode 0700) when missing.
    ///
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` when the folder cannot be made or
    ///   other users may read it.
    init(folder: URL) throws(CourierError) {
        self.folder = folder
        if case .failed(let reason) = PrivateFiles.makeFolder(folder.path) {
            throw CourierError(.invalidConfiguration, "The background downloads folder \(folder.path) cannot be created: \(reason); give a folder the app may write.")
        }
        if let permissions = PrivateFiles.permissions(of: folder.path), PrivateFiles.isOpenToOthers(permissions) {
            throw CourierError(
                .invalidConfiguration,
                "The background downloads folder \(folder.path) is open to other users (mode \(PrivateFiles.octal(permissions))); it holds downloaded bodies, so make it the owner's alone (chmod 700)."
            )
        }
        pruneOld()
    }

    /// The key of a download of `request`: a digest of its method, URL and the fields that
    /// choose what the server answers (credentials, cookies, ranges), so that a result is only
    /// ever handed to the same request, for the same user.
    static func key(for request: CourierHTTPRequest) -> String {
        key(method: request.method.rawValue, url: request.url, headers: request.headers)
    }

    /// The key of a download of `url` with `method` and `headers`.
    static func key(method: String, url: URL, headers: Headers) -> String {
        var text = method + "\n" + url.absoluteString
        for name in keyFields { text += "\n" + (headers.values(for: name).joined(separator: ",")) }
        return Digest.sha256Hex(Data(text.utf8))
    }

    /// The request fields a key covers.
    static let keyFields = ["Authorization", "Cookie", "Range", "If-Range", "Accept"]

    /// Moves the body the session left at `location` into the ledger under `key` (an empty body
    /// when `location` is `nil`), with the head of `response`; returns the entry, or `nil` when
    /// the file could not be kept.
    func keep(_ location: URL?, response: HTTPURLResponse, key: String) -> Entry? {
        guard Self.isKey(key) else { return nil }
        let body = bodyFile(key)
        let head = Head(
            status: response.statusCode,
            fields: CourierURLSessionTransport.headers(of: response).compactMap { field in
                Self.unkeptFields.contains(field.name.lowercased()) ? nil : [field.name, field.value]
            },
            finishedAt: Date()
        )
        remove(key)
        if let location {
            guard move(location, to: body) else { return nil }
            _ = chmod(body.path, 0o600)
        } else {
            guard case .created = PrivateFiles.makeFile(body.path) else { return nil }
        }
        do {
            try PrivateFiles.replaceFile(headFile(key).path, with: try JSONEncoder().encode(head))
        } catch {
            remove(key)
            return nil
        }
        return Entry(head: head, body: body)
    }

    /// The result kept under `key`, if there is one that can be read; a damaged one is deleted.
    func entry(for key: String) -> Entry? {
        guard Self.isKey(key) else { return nil }
        let headURL = headFile(key)
        let body = bodyFile(key)
        guard FileManager.default.fileExists(atPath: headURL.path) else { return nil }
        guard let data = Self.read(headURL), let head = try? JSONDecoder().decode(Head.self, from: data),
            (100...599).contains(head.status), head.fields.allSatisfy({ $0.count == 2 }),
            FileManager.default.fileExists(atPath: body.path)
        else {
            remove(key)
            return nil
        }
        return Entry(head: head, body: body)
    }

    /// Deletes the result kept under `key`.
    func remove(_ key: String) {
        guard Self.isKey(key) else { return }
        try? FileManager.default.removeItem(at: headFile(key))
        try? FileManager.default.removeItem(at: bodyFile(key))
    }

    // MARK: Files

    /// Response fields never written to disk.
    private static let unkeptFields: Set<String> = ["set-cookie", "set-cookie2"]

    private func headFile(_ key: String) -> URL { folder.appendingPathComponent(key + ".head") }
    private func bodyFile(_ key: String) -> URL { folder.appendingPathComponent(key + ".body") }

    /// Whether `key` is a digest this ledger made: 64 lowercase hexadecimal digits, so that a
    /// task description from elsewhere can never name a path outside the folder.
    private static func isKey(_ key: String) -> Bool {
        key.utf8.count == 64 && key.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Moves `source` to `target`, renaming within a volume and copying across volumes.
    private func move(_ source: URL, to target: URL) -> Bool {
        if rename(source.path, target.path) == 0 { return true }
        do {
            try FileManager.default.copyItem(at: source, to: target)
            try? FileManager.default.removeItem(at: source)
            return true
        } catch {
            return false
        }
    }

    private static func read(_ url: URL) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumHeadBytes + 1), data.count <= maximumHeadBytes else { return nil }
        return data
    }

    /// Deletes results older than ``maximumAge``, and bodies without a head.
    private func pruneOld() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let oldest = Date().addingTimeInterval(-Self.maximumAge)
        for name in names where name.hasSuffix(".head") || name.hasSuffix(".body") {
            let key = String(name.dropLast(5))
            guard Self.isKey(key) else { continue }
            let path = folder.appendingPathComponent(name).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            let orphan = name.hasSuffix(".body") && !FileManager.default.fileExists(atPath: headFile(key).path)
            if orphan || (modified.map { $0 < oldest } ?? true) { remove(key) }
        }
    }
}
