import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension DownloadDestination {
    /// Makes the first `bytes` bytes of `file` the partial download of `url` to this
    /// destination, so that `CourierClient.download(_:to:options:)` asks only for the rest,
    /// with `If-Range` carrying `entityTag` (when strong) or else `lastModified`.
    ///
    /// `file` is moved into place, or copied and then removed when it is on another file
    /// system; the partial file and its record are the owner's alone (mode 0600). A partial
    /// download or record already there for `url` is replaced.
    ///
    /// - Throws: ``CourierError/Kind/resumeMismatch`` when there is no validator to continue
    ///   safely with, or `file` holds fewer than `bytes` bytes;
    ///   ``CourierError/Kind/invalidDestination`` when `file` is not a regular file or the
    ///   destination's folder cannot be written.
    package func adoptPartialDownload(of url: URL, from file: URL, bytes: Int64, entityTag: String?, lastModified: String?) throws(CourierError) {
        let strongTag = entityTag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
        guard strongTag != nil || lastModified != nil else {
            throw CourierError(
                .resumeMismatch, "The interrupted download of \(url.absoluteString) has no strong entity-tag or date to continue it safely with; download it again.",
                url: url
            )
        }
        guard bytes >= 0, let length = PartialFile.length(of: file), length >= bytes else {
            throw CourierError(
                .resumeMismatch, "The interrupted download's file \(file.path) is missing or holds fewer than the \(bytes) bytes it should; download again.",
                url: url
            )
        }
        if case .file(let target) = self {
            guard target.standardizedFileURL != file.standardizedFileURL else {
                throw CourierError(.invalidDestination, "The interrupted download's file is the destination itself; choose another destination.", url: url)
            }
        }
        let working = workingFiles(for: url)
        PartialFile.remove(working.record)
        PartialFile.remove(working.partial)
        try Self.move(file, to: working.partial, url: url)
        // Cut to the bytes the record vouches for, and made the owner's alone.
        guard truncate(working.partial.path, off_t(bytes)) == 0, chmod(working.partial.path, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            PartialFile.remove(working.partial)
            throw CourierError(.invalidDestination, "Could not prepare the partial file \(working.partial.path): \(reason).", url: url)
        }
        let record = ResumeRecord(for: url, entityTag: strongTag, lastModified: lastModified, bytesReceived: bytes, fileName: nil)
        do {
            try record.save(to: working.record)
        } catch {
            PartialFile.remove(working.partial)
            throw error
        }
    }

    /// Renames `file` to `partial`, or copies it across file systems; a link is never followed.
    private static func move(_ file: URL, to partial: URL, url: URL) throws(CourierError) {
        if rename(file.path, partial.path) == 0 { return }
        let code = errno
        guard code == EXDEV else {
            throw CourierError(
                .invalidDestination, "Could not move \(file.path) to \(partial.path): \(String(cString: strerror(code))). Check the folder's permissions.", url: url
            )
        }
        try copy(file, to: partial, url: url)
        _ = unlink(file.path)
    }

    /// Copies the regular file `file` to a new file `partial` (mode 0600), a piece at a time.
    private static func copy(_ file: URL, to partial: URL, url: URL) throws(CourierError) {
        func failure(_ action: String, _ path: String) -> CourierError {
            CourierError(.invalidDestination, "Could not \(action) \(path): \(String(cString: strerror(errno))). Check the folder's permissions and free space.", url: url)
        }
        guard let source = try? FileHandle(forReadingFrom: file) else { throw failure("read", file.path) }
        defer { try? source.close() }
        guard case .opened(let target) = POSIXFiles.open(partial.path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600) else {
            throw failure("create", partial.path)
        }
        defer { close(target) }
        while true {
            guard let piece = try? source.read(upToCount: 1 << 20) ?? Data() else {
                PartialFile.remove(partial)
                throw failure("read", file.path)
            }
            if piece.isEmpty { return }
            guard POSIXFiles.writeAll(target, piece) else {
                PartialFile.remove(partial)
                throw failure("write", partial.path)
            }
        }
    }
}
