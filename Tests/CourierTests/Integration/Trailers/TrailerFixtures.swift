import Courier
import Foundation

/// What the test server's `/trailers` route answers: the length of the request's body and the
/// trailers it ended with.
struct TrailerEcho: Decodable {
    let length: Int
    let trailers: [String: String]
}

/// A body written in `pieces` by a ``RequestBodyWriter``, ended with `trailers`.
func writtenBody(_ pieces: [String] = ["abc", "def"], length: Int64? = nil, trailers: Headers) -> CourierRequestBody {
    .writing(length: length) { writer in
        for piece in pieces { try await writer.write(Data(piece.utf8)) }
        return trailers
    }
}
