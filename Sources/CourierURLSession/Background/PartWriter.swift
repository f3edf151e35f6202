import Courier
import Foundation

/// A response body written to a part file of the ledger as it arrives.
///
/// States: nothing written (no file) → writing (the file made 0600 at the first piece) →
/// closed, or dropped (a piece that could not be written, or one past the limit: the file is
/// closed and every later piece refused). The caller deletes a dropped file with the ledger.
struct PartWriter {
    private var handle: FileHandle?
    /// The body bytes written so far.
    private(set) var bytes: Int64 = 0
    /// Whether a piece could not be written: the body cannot be kept.
    private(set) var isDropped = false
    /// Whether a file was made for the body: `false` while nothing has arrived.
    private(set) var hasFile = false

    /// Appends `data` to `file`, making it at the first piece; returns `false`, and drops the
    /// body, when it cannot be written or would pass `limit` bytes.
    mutating func append(_ data: Data, to file: URL, limit: Int64 = .max) -> Bool {
        guard !isDropped else { return false }
        if !hasFile {
            guard case .created = PrivateFiles.makeFile(file.path), let opened = try? FileHandle(forWritingTo: file) else {
                return drop()
            }
            handle = opened
            hasFile = true
        }
        bytes += Int64(data.count)
        guard bytes <= limit, let handle, (try? handle.write(contentsOf: data)) != nil else { return drop() }
        return true
    }

    /// Closes the file, once every piece has arrived.
    mutating func close() {
        try? handle?.close()
        handle = nil
    }

    private mutating func drop() -> Bool {
        close()
        isDropped = true
        return false
    }
}
