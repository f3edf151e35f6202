import NIOCore
import NIOHTTP1

extension TestServerRoutes {
    /// The largest body the generated-bytes routes (`/bytes`, `/stream-bytes`, `/range`, `/drip`) serve.
    static let maximumGeneratedSize = 1 << 30
    /// The largest uncompressed size `/gzip-bomb` accepts.
    static let maximumBombSize = 1 << 34

    /// A duration in (possibly fractional) seconds, clamped to `0...maximum`; `nil` if `text` is not a number.
    static func seconds(_ text: String?, default defaultValue: Double, maximum: Double) -> TimeAmount? {
        guard let text else { return .nanoseconds(Int64(defaultValue * 1e9)) }
        guard let value = Double(text), value.isFinite else { return nil }
        return .nanoseconds(Int64(min(max(value, 0), maximum) * 1e9))
    }

    /// A non-negative integer query or path value, `nil` if invalid.
    static func count(_ text: String?, default defaultValue: Int, maximum: Int) -> Int? {
        guard let text else { return defaultValue }
        guard let value = Int(text), value >= 0, value <= maximum else { return nil }
        return value
    }

    /// `/delay/S`: the `/get`-style echo after S seconds (fractional, at most 10).
    static func delay(_ request: TestRequest, _ text: String) -> TestResponse {
        guard let delay = self.seconds(text, default: 0, maximum: 10) else {
            return .error(.badRequest, "invalid delay \(text)")
        }
        var response = TestResponse.json(EchoBuilder.echo(request))
        response.delay = delay
        return response
    }

    /// `/drip?numbytes=N&duration=S&delay=S&code=C`: N `*` bytes spread over `duration`, after `delay`.
    static func drip(_ request: TestRequest) -> TestResponse {
        guard let total = self.count(request.queryValue("numbytes"), default: 10, maximum: 10 * 1024 * 1024),
            let duration = self.seconds(request.queryValue("duration"), default: 2, maximum: 60),
            let delay = self.seconds(request.queryValue("delay"), default: 0, maximum: 10),
            let code = self.count(request.queryValue("code"), default: 200, maximum: 599), code >= 200
        else {
            return .error(.badRequest, "invalid drip parameters")
        }
        // At most 1000 pieces (one per byte for small bodies), sizes differing by at most one byte.
        let pieces = min(total, 1000)
        var chunks: [[UInt8]] = []
        for index in 0..<pieces {
            let size = total / pieces + (index < total % pieces ? 1 : 0)
            chunks.append([UInt8](repeating: UInt8(ascii: "*"), count: size))
        }
        let pause = pieces > 0 ? TimeAmount.nanoseconds(duration.nanoseconds / Int64(pieces)) : .zero
        var response = TestResponse(
            status: HTTPResponseStatus(statusCode: code),
            headers: ["Content-Type": "application/octet-stream"],
            body: .stream(length: total, source: ChunkListSource(chunks, pause: pause))
        )
        response.delay = delay
        return response
    }

    /// `/bytes/N?seed=K` (with `Content-Length`) and `/stream-bytes/N?chunk_size=C&seed=K` (chunked).
    static func bytes(_ request: TestRequest, _ text: String, streamed: Bool) -> TestResponse {
        guard let total = self.count(text, default: 0, maximum: self.maximumGeneratedSize),
            let seed = UInt64(request.queryValue("seed") ?? "0"),
            let chunkSize = self.count(request.queryValue("chunk_size"), default: 10240, maximum: 1 << 24)
        else {
            return .error(.badRequest, "invalid byte count, seed or chunk size")
        }
        let source = GeneratedBytesSource(
            seed: seed,
            range: 0..<total,
            chunkSize: streamed ? max(1, chunkSize) : 64 * 1024
        )
        return TestResponse(
            status: .ok,
            headers: ["Content-Type": "application/octet-stream"],
            body: .stream(length: streamed ? nil : total, source: source)
        )
    }

    /// `/stream/N`: N newline-terminated JSON objects, one chunk each (N at most 100 000).
    static func stream(_ request: TestRequest, _ text: String) -> TestResponse {
        guard let lines = self.count(text, default: 0, maximum: 100_000) else {
            return .error(.badRequest, "invalid line count \(text)")
        }
        var summary: [(String, JSONValue)] = [("url", .string(request.fullURL))]
        summary.append(("args", JSONValue.multiValueObject(request.queryItems)))
        summary.append(contentsOf: EchoBuilder.summary(request))
        let chunks = (0..<lines).map { index in
            Array((JSONValue.object([("id", .int(Int64(index)))] + summary).serialized() + "\n").utf8)
        }
        return TestResponse(
            status: .ok,
            headers: ["Content-Type": "application/json"],
            body: .stream(length: nil, source: ChunkListSource(chunks))
        )
    }

    /// `/gzip` and `/deflate`: an echo document, always compressed.
    static func compressed(_ request: TestRequest, format: Deflater.Format) -> TestResponse {
        let flag = format == .gzip ? "gzipped" : "deflated"
        let document = JSONValue.object([(flag, .bool(true))] + EchoBuilder.summary(request))
        guard let body = try? Deflater.compress(document.encoded(), format: format) else {
            return .error(.internalServerError, "compression failed")
        }
        return TestResponse(
            status: .ok,
            headers: [
                "Content-Type": "application/json",
                "Content-Encoding": format == .gzip ? "gzip" : "deflate",
            ],
            body: .bytes(body)
        )
    }

    /// `/encoded?coding=gzip,deflate&cut=N`: the text `layered body` encoded with each listed
    /// coding in turn (`gzip`, `deflate`, `raw-deflate`; any other name is sent as a label
    /// only), `Content-Encoding` listing them as given (`raw-deflate` as `deflate`), with the
    /// last N bytes cut off.
    static func encoded(_ request: TestRequest) -> TestResponse {
        let codings = (request.queryValue("coding") ?? "gzip").split(separator: ",").map { String($0) }
        var body = Array("layered body".utf8)
        do {
            for coding in codings {
                switch coding {
                case "gzip": body = try Deflater.compress(body, format: .gzip)
                case "deflate": body = try Deflater.compress(body, format: .zlib)
                case "raw-deflate": body = try Deflater.compress(body, format: .raw)
                case "br", "zstd": body = try SystemCompression(contentCoding: coding)!.compress(body)
                default: break
                }
            }
        } catch {
            return .error(.internalServerError, "compression failed")
        }
        let cut = min(body.count, Int(request.queryValue("cut") ?? "0") ?? 0)
        body.removeLast(cut)
        let label = codings.map { $0 == "raw-deflate" ? "deflate" : $0 }.joined(separator: ", ")
        return TestResponse(status: .ok, headers: ["Content-Encoding": label], body: .bytes(body))
    }

    /// `/bomb?coding=br&size=N` (or `zstd`): N zero bytes in one brotli stream or zstd frame,
    /// compressed whole before it is sent (so at most 256 MiB).
    static func bomb(_ request: TestRequest) -> TestResponse {
        guard let coding = request.queryValue("coding").flatMap(SystemCompression.init(contentCoding:)),
            let size = self.count(request.queryValue("size"), default: 10 * 1024 * 1024, maximum: 256 * 1024 * 1024),
            let body = try? coding.compress([UInt8](repeating: 0, count: size), level: 3)
        else {
            return .error(.badRequest, "invalid coding or size")
        }
        return TestResponse(
            status: .ok,
            headers: ["Content-Type": "application/octet-stream", "Content-Encoding": request.queryValue("coding") ?? ""],
            body: .bytes(body)
        )
    }

    /// `/gzip-bomb?size=N`: N zero bytes, gzip-compressed on the fly (chunked).
    static func gzipBomb(_ request: TestRequest) -> TestResponse {
        let sizeText = request.queryValue("size")
        guard let size = self.count(sizeText, default: 10 * 1024 * 1024, maximum: self.maximumBombSize),
            let source = try? GzipZerosSource(count: size)
        else {
            return .error(.badRequest, "invalid size")
        }
        return TestResponse(
            status: .ok,
            headers: ["Content-Type": "application/octet-stream", "Content-Encoding": "gzip"],
            body: .stream(length: nil, source: source)
        )
    }
}

extension TestServerRoutes {
    /// `/trailers?coding=gzip&NAME=VALUE…`: a chunked body in two pieces, the JSON object
    /// `{"length": N, "trailers": {…}}` describing the request's body and the trailers it ended
    /// with (gzipped when `coding=gzip`), followed by every other query item as a trailer field.
    static func trailers(_ request: TestRequest) -> TestResponse {
        var received: [(String, JSONValue)] = []
        for (name, value) in request.trailers ?? [:] { received.append((name, .string(value))) }
        var body = JSONValue.object([("length", .int(Int64(request.body.count))), ("trailers", .object(received))]).encoded()
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if request.queryValue("coding") == "gzip" {
            guard let compressed = try? Deflater.compress(body, format: .gzip) else { return .error(.internalServerError, "compression failed") }
            body = compressed
            headers.add(name: "Content-Encoding", value: "gzip")
        }
        let half = body.count / 2
        var response = TestResponse(
            status: .ok, headers: headers, body: .stream(length: nil, source: ChunkListSource([Array(body[..<half]), Array(body[half...])]))
        )
        response.trailers = HTTPHeaders(request.queryItems.filter { $0.0 != "coding" })
        return response
    }
}
