import Crypto
import Foundation

/// Where a download is written.
public enum DownloadDestination: Sendable, Hashable {
    /// This exact file.
    case file(URL)
    /// A file in this folder, named after the server's `Content-Disposition` (`filename*`
    /// first), else the URL's last path segment, made safe: only the last component, no
    /// leading dot, no control characters, never outside the folder.
    case directory(URL)

    /// The folder the file, its partial file and its resume record go into.
    var folder: URL {
        switch self {
        case .file(let url): url.deletingLastPathComponent()
        case .directory(let url): url
        }
    }

    /// The partial file and resume record of a download of `url` to this destination.
    ///
    /// Both sit beside the destination: `NAME.courier-partial` and `NAME.courier-resume` for a
    /// file; for a folder, whose file name is known only from the response, names derived
    /// from the URL (`.courier-HASH.…`), so that the same URL finds them again.
    func workingFiles(for url: URL) -> (partial: URL, record: URL) {
        let stem: String
        switch self {
        case .file(let file):
            stem = file.lastPathComponent
        case .directory:
            let digest = SHA256.hash(data: Data(url.absoluteString.utf8))
            stem = ".courier-" + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
        }
        return (folder.appendingPathComponent(stem + ".courier-partial"), folder.appendingPathComponent(stem + ".courier-resume"))
    }
}
