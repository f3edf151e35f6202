import Foundation

extension RequestBody {
    /// A `multipart/form-data` body (RFC 7578) from a form, streamed as it is sent.
    ///
    /// The files are measured now, so that the body's length (its `Content-Length`) is known
    /// before anything is sent; they are read piece by piece while the request is sent (over
    /// plain HTTP the built-in transport has the kernel send them straight from the file), and
    /// again from the start when a redirect or a retry sends the body again. A file that
    /// changes while it is sent ends the request with ``CourierError/Kind/invalidBody``, so a
    /// server never receives a mix of old and new bytes.
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` when a file cannot be read or is not a
    ///   regular file, or when a part's content type holds a line break.
    public static func multipart(_ form: MultipartForm) throws(CourierError) -> RequestBody {
        let segments = try form.segments()
        let length = segments.reduce(Int64(0)) { $0 + $1.length }
        let gauge = BufferGauge()
        var body = RequestBody.stream(length: length, contentType: form.contentType) {
            let reader = MultipartReader(segments: segments, gauge: gauge)
            return AsyncThrowingStream(unfolding: { try reader.next() })
        }
        body.bufferGauge = gauge
        body.multipartSegments = segments
        return body
    }
}
