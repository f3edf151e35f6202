import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a download writes into before it is complete, opened without following symbolic
/// links, and the step that moves it into place without replacing a file unless asked.
final class PartialFile {
    let url: URL
    private let descriptor: Int32
    /// The bytes in the file.
    private(set) var length: Int64

    private init(url: URL, descriptor: Int32, length: Int64) {
        self.url = url
        self.descriptor = descriptor
        self.length = length
    }

    deinit { _ = systemClose(descriptor) }

    /// Opens the partial file at `url` to write from `offset`: a new file when `offset` is 0
    /// (any old one is removed first, and a link put there in between is refused), else the
    /// existing file, cut to `offset` bytes. A symbolic link is never followed.
    static func open(at url: URL, from offset: Int64) throws(CourierError) -> PartialFile {
        let path = url.path
        var flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC
        if offset == 0 {
            if unlink(path) != 0 && errno != ENOENT { throw failure("remove the old partial file", path) }
            flags |= O_EXCL
        }
        // For the owner alone: the file becomes the download, which is the user's data.
        let descriptor = systemOpen(path, flags, 0o600)
        guard descriptor >= 0 else { throw failure("open the partial file", path) }
        guard let status = FileStatus(descriptor: descriptor), status.isRegularFile else {
            _ = systemClose(descriptor)
            throw CourierError(.invalidDestination, "The partial file \(path) is not a regular file; remove it and download again.")
        }
        let file = PartialFile(url: url, descriptor: descriptor, length: status.size)
        if file.length != offset {
            guard ftruncate(descriptor, off_t(offset)) == 0 else { throw failure("cut the partial file", path) }
            file.length = offset
        }
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else { throw failure("seek in the partial file", path) }
        return file
    }

    /// Appends `data`.
    func write(_ data: Data) throws(CourierError) {
        let written: Int = data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let result = systemWrite(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if result < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                done += result
            }
            return done
        }
        guard written == data.count else { throw Self.failure("write to the partial file", url.path) }
        length += Int64(written)
    }

    /// The length of the regular file at `url`, or `nil` when there is none (a link is not
    /// followed and counts as none).
    static func length(of url: URL) -> Int64? {
        guard let status = FileStatus(path: url.path), status.isRegularFile else { return nil }
        return status.size
    }

    /// Whether anything (a file, a folder, a link, even a dangling one) is at `url`.
    static func exists(_ url: URL) -> Bool {
        FileStatus(path: url.path) != nil
    }

    /// Removes the files or links at `urls`, where there are any.
    static func remove(_ urls: URL...) {
        for url in urls { _ = unlink(url.path) }
    }

    /// Moves the complete file at `partial` to `destination`. Without `overwrite`, an existing
    /// entry there (a link too) is left alone and the move fails; with it, the entry is
    /// replaced, never followed.
    static func place(_ partial: URL, at destination: URL, overwrite: Bool) throws(CourierError) {
        if overwrite {
            guard rename(partial.path, destination.path) == 0 else { throw failure("move the download to", destination.path) }
            return
        }
        if link(partial.path, destination.path) == 0 {
            _ = unlink(partial.path)
            return
        }
        if errno == EEXIST { throw existing(destination) }
        // A file system without hard links: check, then rename.
        guard !exists(destination) else { throw existing(destination) }
        guard rename(partial.path, destination.path) == 0 else { throw failure("move the download to", destination.path) }
    }

    static func existing(_ destination: URL) -> CourierError {
        CourierError(
            .invalidDestination,
            "\(destination.path) already exists; remove it, choose another destination, or allow overwriting (DownloadOptions.overwritesExistingFile, --overwrite)."
        )
    }

    private static func failure(_ action: String, _ path: String) -> CourierError {
        let code = errno
        let reason = String(cString: strerror(code))
        let hint = code == ELOOP ? " It is a symbolic link, which downloads never follow." : " Check the folder's permissions and free space."
        return CourierError(.invalidDestination, "Could not \(action) \(path): \(reason).\(hint)")
    }
}

private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, buffer, count) }
