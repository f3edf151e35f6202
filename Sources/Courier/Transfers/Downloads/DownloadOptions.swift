/// How a download behaves.
public struct DownloadOptions: Sendable {
    /// Whether an existing file at the destination is replaced. When `false` (the default) the
    /// download fails with ``CourierError/Kind/invalidDestination`` rather than replace it.
    public var overwritesExistingFile: Bool = false
    /// Whether a partial file and resume record left by an earlier download of the same URL
    /// to the same destination are continued (the default). When `false` they are discarded
    /// and the download starts from zero.
    public var resumesPartialDownload: Bool = true
    /// How many times in all the download is attempted: after a dropped connection or a
    /// timeout, it resumes from the bytes already on disk until this many attempts were made.
    public var maximumAttempts: Int = 5
    /// The largest file accepted, in bytes; `nil` (the default) for no limit. A larger
    /// announced length fails before any of the body is written, a body that grows past it
    /// fails as it does; either way with ``CourierError/Kind/responseTooLarge``, and the partial
    /// file is discarded.
    public var maximumBytes: Int64?
    /// Called with the download's progress, throttled like upload progress.
    public var progress: (@Sendable (TransferProgress) -> Void)?

    /// Counts the bytes received but not yet written to disk; tests read its high-water mark.
    var bufferGauge: BufferGauge?

    /// Creates options; every argument has the default described on its property.
    public init(
        overwritesExistingFile: Bool = false,
        resumesPartialDownload: Bool = true,
        maximumAttempts: Int = 5,
        maximumBytes: Int64? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.overwritesExistingFile = overwritesExistingFile
        self.resumesPartialDownload = resumesPartialDownload
        self.maximumAttempts = maximumAttempts
        self.maximumBytes = maximumBytes
        self.progress = progress
    }
}
