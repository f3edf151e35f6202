import Courier
import Foundation

/// Where `fetch` writes a body: stdout, the file of `-o` or `-O` (checked before anything is
/// sent), or with `-O -J` the file the response's `Content-Disposition` names.
struct BodyDestination: Sendable {
    /// The file of `-o`, or of `-O` (the URL's last path segment in the current folder).
    var path: String?
    /// `-J`: the response may name the file instead.
    var isNamedByResponse = false

    /// Stdout.
    static let standardOutput = BodyDestination(path: nil)

    /// The destination of `-o PATH`, or of `-O` for `url` (with `-J`, of `Content-Disposition`
    /// first), checked by kind. `folder` (`--output-dir`) holds `-O`'s file and a relative
    /// `-o` path, as in curl; with `createsFolders` (`--create-dirs`), the missing folders of
    /// the path are made first, each for its owner alone.
    init(output: String?, remoteName: Bool, remoteHeaderName: Bool, url: String, folder: String? = nil, createsFolders: Bool = false) throws {
        if remoteHeaderName && !remoteName { throw CommandFailure(.invalidInput, "-J/--remote-header-name needs -O/--remote-name") }
        if remoteName && output != nil { throw CommandFailure(.invalidInput, "give -o PATH or -O, not both") }
        if folder == "" { throw CommandFailure(.invalidInput, "--output-dir needs a folder") }
        func makeFolders(of path: String) throws {
            guard createsFolders, let reason = PrivateFiles.makeParents(of: path) else { return }
            throw CommandFailure(.writeError, "--create-dirs could not make the folders of \(path): \(reason)")
        }
        if var output {
            if let folder, !output.hasPrefix("/") { output = URL(fileURLWithPath: folder, isDirectory: true).appendingPathComponent(output).path }
            try makeFolders(of: output)
            // As with curl, `-o /dev/null` (or another device) is written to as it is.
            try PathCheck.writableFile(output, option: "-o", allowsDevice: true)
            path = output
        } else if remoteName {
            let path = try Self.remotePath(url: url, folder: folder ?? CourierCLI.currentFolder())
            try makeFolders(of: path)
            try PathCheck.writableFile(path, option: "-O")
            self.path = path
            isNamedByResponse = remoteHeaderName
        }
    }

    private init(path: String?) {
        self.path = path
    }

    /// `-O`'s file: the last segment of `url`'s path, made safe as a download's file name is,
    /// in `folder`.
    private static func remotePath(url: String, folder: String) throws -> String {
        guard let parsed = URL(string: url), !parsed.path.isEmpty, !parsed.path.hasSuffix("/") else {
            throw CommandFailure(.writeError, "-O: the URL \(url) has no file name at the end of its path; give -o PATH")
        }
        do {
            let name = try DownloadFileName.sanitized(parsed.lastPathComponent)
            return URL(fileURLWithPath: folder, isDirectory: true).appendingPathComponent(name).path
        } catch {
            throw CommandFailure(.invalidInput, "-O: \(error.message)")
        }
    }

    /// The file for the body of `head`: with `-J`, the name its `Content-Disposition` gives,
    /// made safe, beside `-O`'s file, which must not exist yet.
    func path(for head: CourierResponse) throws -> String? {
        guard isNamedByResponse, let path, let field = head.headers["Content-Disposition"] else { return self.path }
        let file = URL(fileURLWithPath: path)
        let named: String
        do {
            named = file.deletingLastPathComponent().appendingPathComponent(try DownloadFileName.name(contentDisposition: field, url: file)).path
        } catch {
            throw CommandFailure(.writeError, "-J: \(error.message)")
        }
        guard PathCheck.kind(of: named) == .nothing else {
            throw CommandFailure(.writeError, "-J: \(named) exists already and is not replaced; remove it or give -o PATH")
        }
        return named
    }
}
