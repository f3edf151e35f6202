import Courier
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transfers a background session has finished, kept in a folder of the app's own until
/// the client reads them: each is a body file and a head file named by its task's name, which
/// is the transfer's key followed by a random part of the task's own.
///
/// The session hands over a finished download in a temporary file that it deletes as soon as
/// its delegate returns, whether or not the app is still waiting for it: after a relaunch, the
/// task that asked is gone. The ledger moves the file into its folder at once. The answer to an
/// upload nobody waits for (see ``UnclaimedResponses``), and on Linux a download's body (see
/// ``DownloadTaskExchange``), is written to a part file (`.part`) as it arrives, then kept the
/// same way. A result that a waiting download asked for is kept
/// claimed (`.claimed`) for that download alone; one that finished while nobody waited is kept
/// open (`.head`), and the next identical request, in this process or the next, claims it
/// instead of being sent again. A claim renames the head, which the file system does
/// atomically, so that a result is handed to one request only; it is read once and then
/// deleted. Identical transfers at once each have a task, a name and a result of their own.
///
/// The folder is the owner's alone (0700), its files 0600. A head keeps the status and the
/// header fields, without `Set-Cookie`: no session cookie reaches the disk. A head that cannot
/// be read, or a body missing beside it, is deleted and the request sent again; results older
/// than ``maximumAge``, and bodies and part files without a head for ``orphanAge``, are deleted
/// when a ledger opens.
final class TransferLedger: Sendable {
    /// A finished transfer: the response's head and the file that holds its body.
    struct Entry: Sendable {
        /// The name of the task that carried it, which names its files.
        var name: String
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
    /// How long a body or a part file may lie without a head (a part file: unwritten) before a
    /// ledger that opens deletes it.
    static let orphanAge: TimeInterval = 60 * 60
    /// The largest head file read.
    static let maximumHeadBytes = 1 << 20

    /// Opens the ledger in `folder`, creating it (mode 0700) when missing.
    ///
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` when the folder cannot be made or
    ///   other users may read it.
    init(folder: URL) throws(CourierError) {
        self.folder = folder
        if case .failed(let reason) = PrivateFiles.makeFolder(folder.path) {
            throw CourierError(.invalidConfiguration, "The background transfers folder \(folder.path) cannot be created: \(reason); give a folder the app may write.")
        }
        if let permissions = PrivateFiles.permissions(of: folder.path), PrivateFiles.isOpenToOthers(permissions) {
            throw CourierError(
                .invalidConfiguration,
                "The background transfers folder \(folder.path) is open to other users (mode \(PrivateFiles.octal(permissions))); it holds downloaded bodies and the answers to uploads, so make it the owner's alone (chmod 700)."
            )
        }
        pruneOld()
    }

    /// The key of a transfer of `request`: a digest of its method, URL, the fields that choose
    /// what the server answers (credentials, cookies, ranges, the idempotency key) and, for an
    /// upload, the file's path, size and modification time, so that a result is only ever
    /// handed to the same request, for the same user, with the same contents.
    static func key(for request: CourierHTTPRequest) -> String {
        key(method: request.method.rawValue, url: request.url, headers: request.headers, file: request.body?.sourceFile)
    }

    /// The key of a transfer of `url` with `method` and `headers`, sending `file` when it is
    /// an upload.
    static func key(method: String, url: URL, headers: Headers, file: CourierRequestBody.SourceFile? = nil) -> String {
        var text = method + "\n" + url.absoluteString
        for name in keyFields { text += "\n" + (headers.values(for: name).joined(separator: ",")) }
        if let file {
            let (seconds, attoseconds) = file.modified.components
            text += "\nfile \(file.size) \(seconds) \(attoseconds) " + file.url.standardizedFileURL.path
        }
        return Digest.sha256Hex(Data(text.utf8))
    }

    /// The request fields a key covers.
    static let keyFields = ["Authorization", "Cookie", "Range", "If-Range", "Accept", "Content-Type", "Idempotency-Key"]

    /// A new task name for a transfer with `key`: the key, a hyphen and 16 random hexadecimal
    /// digits.
    static func name(for key: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16)
        return key + "-" + String(repeating: "0", count: 16 - random.utf8.count) + random
    }

    /// Moves the body the session left at `location` into the ledger under the task name `name`
    /// (an empty body when `location` is `nil`), with the head of `response`: claimed for a
    /// request that waits for it when `isClaimed`, open to the next identical request
    /// otherwise. Returns the entry, or `nil` when the file could not be kept.
    func keep(_ location: URL?, response: HTTPURLResponse, name: String, isClaimed: Bool) -> Entry? {
        guard Self.isName(name) else { return nil }
        let body = bodyFile(name)
        let head = Head(
            status: response.statusCode,
            fields: CourierURLSessionTransport.headers(of: response).compactMap { field in
                Self.unkeptFields.contains(field.name.lowercased()) ? nil : [field.name, field.value]
            },
            finishedAt: Date()
        )
        deleteResult(name)
        if let location {
            guard move(location, to: body) else { return nil }
            _ = chmod(body.path, 0o600)
        } else {
            guard case .created = PrivateFiles.makeFile(body.path) else { return nil }
        }
        do {
            let file = isClaimed ? claimedFile(name) : headFile(name)
            try PrivateFiles.replaceFile(file.path, with: try JSONEncoder().encode(head))
        } catch {
            remove(name)
            return nil
        }
        return Entry(name: name, head: head, body: body)
    }

    /// Claims a result kept open for a transfer with `key`, if there is one that can be read:
    /// no other request is handed it. A damaged one is deleted, and the next one tried.
    func claim(_ key: String) -> Entry? {
        guard Self.isKey(key) else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for file in names where file.hasPrefix(key + "-") && file.hasSuffix(".head") {
            let name = String(file.dropLast(".head".count))
            guard Self.isName(name), rename(headFile(name).path, claimedFile(name).path) == 0 else { continue }
            // The claim is new: a result claimed now is not one to prune as old.
            _ = utimes(claimedFile(name).path, nil)
            if let entry = readEntry(name) { return entry }
            remove(name)
        }
        return nil
    }

    /// The claimed result of the task named `name`, or `nil` when it cannot be read.
    private func readEntry(_ name: String) -> Entry? {
        let body = bodyFile(name)
        guard let data = Self.read(claimedFile(name)), let head = try? JSONDecoder().decode(Head.self, from: data),
            (100...999).contains(head.status), head.fields.allSatisfy({ $0.count == 2 }),
            FileManager.default.fileExists(atPath: body.path)
        else { return nil }
        return Entry(name: name, head: head, body: body)
    }

    /// Deletes the result of the task named `name`, open, claimed or still arriving.
    func remove(_ name: String) {
        guard Self.isName(name) else { return }
        deleteResult(name)
        try? FileManager.default.removeItem(at: partFile(name))
    }

    /// Deletes the head and body kept for `name`, leaving a response still arriving.
    private func deleteResult(_ name: String) {
        for file in [headFile(name), claimedFile(name), bodyFile(name)] {
            try? FileManager.default.removeItem(at: file)
        }
    }

    // MARK: Files

    /// Response fields never written to disk.
    private static let unkeptFields: Set<String> = ["set-cookie", "set-cookie2"]

    private func headFile(_ name: String) -> URL { folder.appendingPathComponent(name + ".head") }
    private func claimedFile(_ name: String) -> URL { folder.appendingPathComponent(name + ".claimed") }
    private func bodyFile(_ name: String) -> URL { folder.appendingPathComponent(name + ".body") }
    /// Where the response to an upload nobody waits for is written while it arrives.
    func partFile(_ name: String) -> URL { folder.appendingPathComponent(name + ".part") }

    /// The endings of the files a result is kept in, or written to before it is kept.
    private static let fileEndings = [".head", ".claimed", ".body", ".part"]

    /// Whether `key` is a digest this ledger made: 64 lowercase hexadecimal digits.
    private static func isKey(_ key: String) -> Bool {
        key.utf8.count == 64 && isHexadecimal(key.utf8)
    }

    /// Whether `name` is a task name this ledger made (a key, a hyphen, 16 lowercase
    /// hexadecimal digits), so that a task description from elsewhere can never name a path
    /// outside the folder.
    static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return bytes.count == 81 && bytes[64] == UInt8(ascii: "-") && isHexadecimal(bytes[..<64]) && isHexadecimal(bytes[65...])
    }

    private static func isHexadecimal(_ bytes: some Sequence<UInt8>) -> Bool {
        bytes.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
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

    /// Deletes results older than ``maximumAge``, and bodies and part files that have had no
    /// head, open or claimed, for ``orphanAge``: a part file that long unwritten is what a
    /// process that ended mid-transfer left.
    ///
    /// Another ledger may use the folder at the same time (an app and its extension, each with
    /// a session of its own): a body it is keeping has no head for a moment, and a file it has
    /// just claimed or read is gone by the time it is examined. Neither is deleted here.
    private func pruneOld() {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let now = Date()
        for file in files {
            guard let ending = Self.fileEndings.first(where: { file.hasSuffix($0) }) else { continue }
            let name = String(file.dropLast(ending.count))
            let path = folder.appendingPathComponent(file).path
            guard Self.isName(name), let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else {
                continue
            }
            let orphan =
                (ending == ".body" || ending == ".part") && modified < now.addingTimeInterval(-Self.orphanAge)
                && !FileManager.default.fileExists(atPath: headFile(name).path) && !FileManager.default.fileExists(atPath: claimedFile(name).path)
            if orphan || modified < now.addingTimeInterval(-Self.maximumAge) { remove(name) }
        }
    }
}
