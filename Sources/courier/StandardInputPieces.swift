import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input as a request body that is sent while it is read (`-T -`), as curl sends it:
/// each piece goes out as soon as it can be read, so a command whose input answers its output
/// (a chat through a pipe) works both ways at once.
///
/// Standard input can be read only once: a second attempt (a redirect that keeps the body, a
/// retry) fails with ``CourierError/Kind/invalidBody`` instead of sending an empty body.
struct StandardInputPieces: Sendable {
    /// The pieces of standard input, for one reading.
    let read: @Sendable () -> AsyncThrowingStream<Data, any Error>

    /// Standard input itself, read in pieces of at most 64 KiB off Swift's pool, one piece
    /// each time the body asks for the next: never faster than it is sent, so a large input
    /// costs no more memory than a piece.
    static let process = StandardInputPieces {
        let reader = DispatchQueue(label: "courier.standard-input")
        return AsyncThrowingStream(unfolding: {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                reader.async {
                    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { systemRead(0, $0.baseAddress, $0.count) }
                        if count > 0 { return continuation.resume(returning: Data(buffer[0..<count])) }
                        if count == 0 { return continuation.resume(returning: nil) }
                        guard errno == EINTR else {
                            let reason = String(cString: strerror(errno))
                            return continuation.resume(throwing: CourierError(.invalidBody, "Standard input cannot be read (\(reason))."))
                        }
                    }
                }
            }
        })
    }

    /// Bytes given whole, as one piece (tests).
    static func bytes(_ data: @escaping @Sendable () throws -> Data) -> StandardInputPieces {
        StandardInputPieces {
            AsyncThrowingStream { continuation in
                do {
                    let bytes = try data()
                    if !bytes.isEmpty { continuation.yield(bytes) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    /// A body of these pieces, of unknown length (sent chunked), without a type of its own.
    func body() -> CourierRequestBody {
        let taken = NIOLockedValueBox(false)
        let read = self.read
        return .stream(length: nil, contentType: nil) {
            let first = taken.withLockedValue { taken in
                defer { taken = true }
                return !taken
            }
            guard first else {
                return AsyncThrowingStream {
                    throw CourierError(.invalidBody, "Standard input was already sent once and cannot be read again (-T -): send it to the final URL, or from a file.")
                }
            }
            return read()
        }
    }
}

/// `read(2)`, named apart from ``StandardInputPieces/read``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
