import Foundation

/// The size and modification time of a file, to tell whether it changed while it was read.
struct FileSnapshot: Equatable, Sendable {
    var size: Int64
    var modified: Duration

    /// Opens `url` for reading and takes its snapshot.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` when the file cannot be opened or is not a
    ///   regular file (a directory, a pipe or a device has no size to announce).
    static func open(_ url: URL) throws(CourierError) -> (FileHandle, FileSnapshot) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw CourierError(
                .invalidBody,
                "The file \(url.path) cannot be read (\(Self.reason(error))); check the path and its permissions.",
                underlyingError: error
            )
        }
        guard let snapshot = FileSnapshot(of: handle), snapshot.isRegularFile else {
            try? handle.close()
            throw CourierError(.invalidBody, "\(url.path) is not a regular file; only files whose size is known in advance can be uploaded.")
        }
        return (handle, snapshot)
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

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
