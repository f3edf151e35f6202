import Foundation
import NIOCore
import NIOHTTP1

/// The routes under `/conformance/` answer as the test server of the conformance suite of
/// Swift's proposed standard HTTP client API (apple/swift-http-api-proposal) does at its root,
/// so that its cases can run against Courier's own server. `/conformance/echo` and
/// `/conformance/speak`, which answer while the request arrives, are ``DuplexScript``'s.
extension TestServerRoutes {
    static func conformance(_ request: TestRequest, _ name: String) -> TestResponse {
        switch name {
        case "request": return describe(request)
        case "200": return TestResponse(status: .ok)
        case "404": return TestResponse(status: .notFound)
        case "999": return TestResponse(status: HTTPResponseStatus(statusCode: 999))
        case "head_with_cl":
            guard request.isHead else { return TestResponse(status: .methodNotAllowed) }
            // The head of a 1000-byte body that a HEAD response leaves out.
            return TestResponse(status: .ok, body: .bytes([UInt8](repeating: UInt8(ascii: "A"), count: 1000)))
        case "gzip": return test(request, coding: "gzip")
        case "deflate": return test(request, coding: "deflate")
        case "brotli": return test(request, coding: "br")
        case "identity": return .text("TEST\n", contentType: "text/plain")
        case "header_multivalue":
            return TestResponse(status: .ok, headers: HTTPHeaders([("X-Test", "one"), ("X-Test", "two")]))
        case "redirect_ping": return TestResponse(status: .movedPermanently, headers: ["Location": "/conformance/redirect_pong"])
        case "redirect_pong": return TestResponse(status: .movedPermanently, headers: ["Location": "/conformance/redirect_ping"])
        case "301": return TestResponse(status: .movedPermanently, headers: ["Location": "/conformance/request"])
        case "308": return TestResponse(status: .permanentRedirect, headers: ["Location": "/conformance/request"])
        case "1mb_body": return TestResponse(status: .ok, body: .bytes([UInt8](repeating: UInt8(ascii: "A"), count: 1_000_000)))
        case "stall":
            // No answer for an hour: a client must give up by itself.
            var response = TestResponse(status: .ok)
            response.delay = .hours(1)
            return response
        case "stall_body":
            // A head and 1000 bytes of a body that then stalls for an hour.
            let chunks = [[UInt8](repeating: UInt8(ascii: "A"), count: 1000), [UInt8(ascii: "A")]]
            return TestResponse(status: .ok, body: .stream(length: nil, source: ChunkListSource(chunks, pause: .hours(1))))
        case "cookie": return TestResponse(status: .ok, headers: ["Set-Cookie": "foo=\(UUID().uuidString)"])
        default: return notFound(request)
        }
    }

    /// `/conformance/request`: the request as JSON, its fields and trailers by name with every
    /// value, its body as text.
    private static func describe(_ request: TestRequest) -> TestResponse {
        func grouped(_ pairs: [(String, String)]) -> JSONValue {
            var names: [String] = []
            var values: [String: [JSONValue]] = [:]
            for (name, value) in pairs {
                if values[name] == nil { names.append(name) }
                values[name, default: []].append(.string(value))
            }
            return .object(names.map { ($0, .array(values[$0]!)) })
        }
        let fields = request.head.headers.map { ($0.name, $0.value) }
        let trailers = request.trailers.map { $0.map { ($0.name, $0.value) } } ?? []
        return .json(
            .object([
                ("params", grouped(request.queryItems)),
                ("headers", grouped(fields)),
                ("body", .string(String(decoding: request.body, as: UTF8.self))),
                ("method", .string(request.method)),
                ("trailers", grouped(trailers)),
            ]))
    }

    /// `TEST\n`, in `coding` when the request's `Accept-Encoding` names it, else as it is.
    private static func test(_ request: TestRequest, coding: String) -> TestResponse {
        let text = Array("TEST\n".utf8)
        let accepted = (request.header("Accept-Encoding") ?? "").split(separator: ",").contains {
            $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == coding
        }
        guard accepted else { return .text("TEST\n", contentType: "text/plain") }
        let body: [UInt8]
        do {
            switch coding {
            case "gzip": body = try Deflater.compress(text, format: .gzip)
            case "deflate": body = try Deflater.compress(text, format: .zlib)
            default: body = try SystemCompression(contentCoding: coding)!.compress(text)
            }
        } catch {
            return .error(.internalServerError, "compression failed")
        }
        return TestResponse(status: .ok, headers: HTTPHeaders([("Content-Type", "text/plain"), ("Content-Encoding", coding)]), body: .bytes(body))
    }
}
