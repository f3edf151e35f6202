import Foundation

/// The size and modification time of a file, to tell whether it changed while it was read.
struct FileSnapshot: Equatable, Sendable {
    var size: Int64
    var modified: Duration

    /// Opens `url` for reading and takes its snapshot.
    ///
    /// The file is opened without waiting, so a FIFO is refused rather than read until
    /// something writes to it.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` when the file cannot be opened or is not a
    ///   regular file (a directory, a pipe or a device has no size to announce).
    static func open(_ url: URL) throws(CourierError) -> (FileHandle, FileSnapshot) {
        let descriptor: Int32
        switch POSIXFiles.open(url.path, O_RDONLY, followsLinks: true) {
        case .opened(let opened):
            descriptor = opened
        case .notRegular:
            throw CourierError(.invalidBody, "\(url.path) is not a regular file; only files whose size is known in advance can be uploaded.")
        case .missing:
            throw unreadable(url, ENOENT)
        case .failed(let code):
            throw unreadable(url, code)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let snapshot = FileSnapshot(of: handle) else {
            try? handle.close()
            throw unreadable(url, errno)
        }
        return (handle, snapshot)
    }

    private static func unreadable(_ url: URL, _ code: Int32) -> CourierError {
        CourierError(.invalidBody, "The file \(url.path) cannot be read (\(String(cString: strerror(code)))); check the path and its permissions.")
    }

    /// The snapshot of `url` now.
    static func measure(_ url: URL) throws(CourierError) -> FileSnapshot {
        let (handle, snapshot) = try open(url)
        try? handle.close()
        return snapshot
    }

    private var isRegularFile = true

    /// The snapshot of the file open on `handle`, or `nil` if it cannot be taken.
    init?(of handle: FileHandle) {
        guard let status = FileStatus(descriptor: handle.fileDescriptor) else { return nil }
        isRegularFile = status.isRegularFile
        size = status.size
        modified = .nanoseconds(status.modified)
    }
}
