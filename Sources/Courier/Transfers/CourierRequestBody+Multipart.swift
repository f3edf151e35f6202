import Foundation

extension CourierRequestBody {
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
    public static func multipart(_ form: MultipartForm) throws(CourierError) -> CourierRequestBody {
        let segments = try form.segments()
        var body = read(segments, contentType: form.contentType)
        body.multipartSegments = segments
        return body
    }

    /// The contents of the file at `url`, read piece by piece while the request is sent.
    ///
    /// The file is measured now, so that its length is the body's `Content-Length`; at most
    /// one piece of it is in memory at a time, and it is read again from the start when a
    /// redirect or a retry sends the body again. A file that grows, shrinks, is rewritten or
    /// vanishes while it is sent ends the request with ``CourierError/Kind/invalidBody``
    /// before its last piece goes out, so a server never receives a complete-looking mix of
    /// old and new bytes.
    ///
    /// ```swift
    /// request.body = try .file(URL(fileURLWithPath: "backup.tar"), contentType: "application/x-tar")
    /// ```
    ///
    /// - Throws: ``CourierError/Kind/invalidBody`` when the file cannot be read or is not a
    ///   regular file.
    public static func file(_ url: URL, contentType: String? = "application/octet-stream") throws(CourierError) -> CourierRequestBody {
        let snapshot = try FileSnapshot.measure(url)
        var body = read([.file(url, size: snapshot.size)], contentType: contentType)
        body.sourceFile = SourceFile(url: url, size: snapshot.size, modified: snapshot.modified)
        return body
    }

    /// A body made of `segments`, read piece by piece when the transport asks for the next.
    private static func read(_ segments: [MultipartSegment], contentType: String?) -> CourierRequestBody {
        let length = segments.reduce(Int64(0)) { $0 + $1.length }
        let gauge = BufferGauge()
        var body = CourierRequestBody.stream(length: length, contentType: contentType) {
            let reader = MultipartReader(segments: segments, gauge: gauge)
            return AsyncThrowingStream(unfolding: { try reader.next() })
        }
        body.bufferGauge = gauge
        return body
    }
}
