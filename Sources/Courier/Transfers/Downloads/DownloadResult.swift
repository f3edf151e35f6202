import Foundation

/// A finished download.
public struct DownloadResult: Sendable {
    /// The file, complete and checked, at its final place.
    public var fileURL: URL
    /// The last response's status, fields and URL (after redirects); its body is empty.
    public var response: CourierResponse
    /// The file's length in bytes.
    public var bytes: Int64
    /// How many attempts it took, counting those of an earlier paused or interrupted run only
    /// when they happened in this call.
    public var attempts: Int

    /// Creates a result, for tests.
    public init(fileURL: URL, response: CourierResponse, bytes: Int64, attempts: Int) {
        self.fileURL = fileURL
        self.response = response
        self.bytes = bytes
        self.attempts = attempts
    }
}
