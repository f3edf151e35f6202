/// What a download does with the response to one attempt: a pure function of the response's
/// status and fields and of what is already on disk, so tests drive it without I/O.
enum ResumeDecision: Equatable {
    /// Write the body from `offset` of the file (0: from the start, truncating what is there);
    /// the whole file is `total` bytes, when known.
    case write(offset: Int64, total: Int64?)
    /// The partial file already holds every byte (416 for a range starting at its end).
    case complete(total: Int64)
    /// The server cannot continue the partial file (a 416 that does not say it is complete):
    /// discard it and start again from zero.
    case startOver
    /// The answer does not continue the partial file; ``CourierError/Kind/resumeMismatch``.
    case reject(String)
    /// A status that delivers no file.
    case fail(status: Int)

    /// Decides for a response to a request that asked for the bytes from `offset` on (0: no
    /// `Range` was sent), for a file whose total, when known from an earlier attempt, is
    /// `expectedTotal`.
    static func evaluate(
        status: Int, contentRange: String?, contentLength: Int64?, isEncoded: Bool,
        offset: Int64, expectedTotal: Int64?
    ) -> ResumeDecision {
        switch status {
        case 200:
            // The whole representation: the first one, or a changed one (If-Range failed).
            return .write(offset: 0, total: isEncoded ? nil : contentLength)
        case 206:
            guard let field = contentRange, let parsed = ContentRange(field), let range = parsed.range else {
                return .reject("The server answered 206 without a usable Content-Range (\(contentRange ?? "none")).")
            }
            guard range.lowerBound == offset else {
                return .reject("The server sent bytes from \(range.lowerBound) when bytes from \(offset) were asked for.")
            }
            if let expectedTotal, let total = parsed.total, total != expectedTotal {
                return .reject("The server says the file is \(total) bytes long; it was \(expectedTotal) when the download began.")
            }
            // Compared as length − 1 with last − first, which cannot overflow: bytes
            // 0-9223372036854775807 would hold one byte more than an Int64 counts.
            if let contentLength, !isEncoded, contentLength < 1 || contentLength - 1 != range.upperBound - range.lowerBound {
                return .reject("The server's Content-Length (\(contentLength)) does not match its Content-Range (\(field)).")
            }
            return .write(offset: offset, total: parsed.total ?? expectedTotal)
        case 416:
            let total = contentRange.flatMap(ContentRange.init)?.total ?? expectedTotal
            if offset > 0, let total, total == offset, expectedTotal == nil || expectedTotal == total {
                return .complete(total: total)
            }
            return .startOver
        default:
            return .fail(status: status)
        }
    }
}
