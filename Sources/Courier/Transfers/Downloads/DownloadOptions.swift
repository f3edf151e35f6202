/// How a download behaves.
public struct DownloadOptions: Sendable {
    /// Whether an existing file at the destination is replaced. When `false` (the default) the
    /// download fails with ``CourierError/Kind/invalidDestination`` rather than replace it.
    public var overwritesExistingFile: Bool = false
    /// Whether a partial file and resume record left by an earlier download of the same URL
    /// to the same destination are continued (the default). When `false` they are discarded
    /// and the download starts from zero.
    public var resumesPartialDownload: Bool = true
    /// At most how many attempts in all, whatever the retry policy allows; `nil` (the default)
    /// leaves it to the retry policy.
    ///
    /// A download is retried by the retry policy like any request (the request's
    /// ``CourierRequest/retryPolicy``, else the client's, which retries nothing by default):
    /// after a dropped connection, a timeout or a retryable status it resumes from the bytes
    /// already on disk, with the policy's backoff and `Retry-After`, within the request's
    /// timeout.
    public var maximumAttempts: Int?
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
        maximumAttempts: Int? = nil,
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
