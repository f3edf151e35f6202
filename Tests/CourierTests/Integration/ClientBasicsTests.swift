import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Client basics against the in-process server")
struct ClientBasicsTests {
    @Test func getWithParametersGoesIntoTheQuery() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Echo>(path: "/get")
                request.parameters = ["q": "a b", "tags": ["x", "y"], "n": 3]
                let echo = try await client.send(request)
                #expect(echo.method == "GET")
                #expect(echo.args["q"] == "a b")
                #expect(echo.args["n"] == "3")
                #expect(echo.args["tags[]"] == ["x", "y"])
                #expect(server.receivedRequests.last?.uri == "/get?n=3&q=a%20b&tags%5B%5D=x&tags%5B%5D=y")
            }
        }
    }

    @Test func postParametersGoIntoAFormBodyByDefault() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Echo>(method: .post, path: "/post")
                request.parameters = ["name": "Ada Lovelace", "year": 1815]
                let echo = try await client.send(request)
                #expect(echo.form["name"] == "Ada Lovelace")
                #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded")
                #expect(server.receivedRequests.last?.bodyString == "name=Ada+Lovelace&year=1815")
            }
        }
    }

    @Test func jsonBodyEncodingIsChosenPerRequest() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<Echo>(method: .put, path: "/put")
                request.parameters = ["ok": true, "list": [1, 2]]
                request.parameterEncoding = .body(.json)
                let echo = try await client.send(request)
                #expect(echo.json == ["list": [1, 2], "ok": true])
                #expect(echo.header("Content-Type") == "application/json")
            }
        }
    }

    @Test func encodableBodyAndDecodableResponse() async throws {
        struct Note: Codable, Equatable, Sendable { let title: String; let pages: Int }
        try await withServer { server in
            try await withClient(server) { client in
                let request = CourierRequest<Echo>(method: .post, path: "/anything/notes", body: try .json(Note(title: "T", pages: 2)))
                let echo = try await client.send(request)
                #expect(echo.json == ["title": "T", "pages": 2])
            }
        }
    }

    @Test func defaultHeadersAndRequestHeaders() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.defaultHeaders.add(name: "X-Default", value: "d") }) { client in
                var request = CourierRequest<Echo>(path: "/headers")
                request.headers.add(name: "X-Request", value: "r")
                request = request.map { response, _ in
                    let object = try response.json()
                    var headers: [String: String] = [:]
                    if case .object(let members)? = object["headers"] {
                        for (key, value) in members { headers[key] = value.stringValue }
                    }
                    return Echo(method: "GET", url: "", args: [:], headers: headers, data: "", form: [:], json: nil)
                }
                let echo = try await client.send(request)
                #expect(echo.header("X-Default") == "d")
                #expect(echo.header("X-Request") == "r")
                #expect(echo.header("User-Agent")?.hasPrefix("Courier/") == true)
                #expect(echo.header("Accept-Encoding") == "gzip, deflate, br, zstd")
            }
        }
    }

    @Test func baseURLWithAPathAndCDN() async throws {
        try await withTwoServers { api, cdn in
            var configuration = ClientConfiguration(baseURL: api.url("/anything/v1"), cdnURL: cdn.url("/anything/static"))
            configuration.redirectPolicy = .default
            try await CourierClient.withClient(configuration: configuration) { client in
                let fromAPI = try await client.send(CourierRequest<Echo>(path: "/users"))
                #expect(fromAPI.url.hasSuffix("/anything/v1/users"))
                var fromCDN = CourierRequest<Echo>(path: "logo.png")
                fromCDN.usesCDN = true
                let echo = try await client.send(fromCDN)
                #expect(echo.url == cdn.url("/anything/static/logo.png").absoluteString)
                #expect(cdn.receivedRequests.count == 1)
            }
        }
    }

    @Test func typedEndpoint() async throws {
        struct Anything: CourierEndpoint {
            typealias Value = Echo
            let id: Int
            var path: String { "/anything/items/\(id)" }
            var method: CourierHTTPMethod { .patch }
            var parameters: CourierParameters? { ["done": true] }
        }
        try await withServer { server in
            try await withClient(server) { client in
                let echo = try await client.send(Anything(id: 7))
                #expect(echo.method == "PATCH")
                #expect(echo.url.hasSuffix("/anything/items/7"))
                #expect(echo.form["done"] == "true")
            }
        }
    }

    @Test func responseCarriesStatusHeadersTimingAndURL() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/response-headers?X-One=1&X-One=2&X-Two=b"))
                #expect(response.status == 200)
                #expect(response.headers.values(for: "x-one") == ["1", "2"])
                #expect(response.headers["X-TWO"] == "b")
                #expect(response.url == server.url("/response-headers?X-One=1&X-One=2&X-Two=b"))
                #expect(response.source == .network)
                let firstByte = try #require(response.timing.firstByte)
                let end = try #require(response.timing.end)
                #expect(response.timing.start <= firstByte && firstByte <= end)
            }
        }
    }

    @Test(arguments: ["/gzip", "/deflate"])
    func compressedBodiesAreInflated(path: String) async throws {
        try await withServer { server in
            try await withClient(server) { client in
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: path))
                let json = try response.json()
                #expect(json["gzipped"] == true || json["deflated"] == true)
                #expect(json["method"] == "GET")
            }
        }
    }

    @Test func decompressionBombIsRefused() async throws {
        try await withServer { server in
            try await withClient(server, configure: { $0.decompression = .enabled(maximumRatio: 50) }) { client in
                let error = await courierError { _ = try await client.response(for: CourierRequest<CourierResponse>(path: "/gzip-bomb?size=20000000")) }
                #expect(error?.kind == .decompressionLimitExceeded)
            }
        }
    }

    @Test func charsetFromContentTypeIsHonoured() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                // "café" in ISO-8859-1 is 63 61 66 E9 → base64 "Y2Fm6Q=="
                let response = try await client.response(for: CourierRequest<CourierResponse>(path: "/base64/Y2Fm6Q==?content_type=text/plain;%20charset=iso-8859-1"))
                #expect(response.text() == "café")
                let text = try await client.send(CourierRequest<String>(path: "/base64/Y2Fm6Q==?content_type=text/plain;%20charset=iso-8859-1"))
                #expect(text == "café")
            }
        }
    }

    @Test func onlyIfCachedWithoutACacheAnswers504WithoutTouchingTheNetwork() async throws {
        try await withServer { server in
            try await withClient(server) { client in
                var request = CourierRequest<CourierResponse>(path: "/get")
                request.cachePolicy = .onlyIfCached
                request.validators = []
                let response = try await client.send(request)
                #expect(response.status == 504)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }

    @Test func sendingAfterShutdownIsATypedError() async throws {
        try await withServer { server in
            let client = CourierClient(configuration: ClientConfiguration(baseURL: server.baseURL))
            try await client.shutdown()
            try await client.shutdown()
            let error = await courierError { try await client.send(CourierRequest<Void>(path: "/get")) }
            #expect(error?.kind == .clientShutdown)
        }
    }
}

@Suite("Escape hatch")
struct EscapeHatchTests {
    @Test func aFullyBuiltRequestIsSentAsItIs() async throws {
        try await withServer { server in
            try await withClient(nil, configure: { $0.defaultHeaders = ["X-Default": "not sent"] }) { client in
                var request = CourierHTTPRequest(method: "REPORT", url: server.url("/anything/raw?keep=%2F"))
                request.headers = ["Depth": "1", "Content-Type": "application/xml"]
                request.body = .text("<r/>", contentType: "application/xml")
                let response = try await client.send(request)
                #expect(response.status == 200)
                let arrived = try #require(server.receivedRequests.last)
                #expect(arrived.method == "REPORT")
                #expect(arrived.uri == "/anything/raw?keep=%2F")
                #expect(arrived.header("Depth") == "1")
                #expect(arrived.header("X-Default") == nil)
                #expect(arrived.bodyString == "<r/>")
            }
        }
    }

    @Test func theEscapeHatchIsStillCheckedForInjection() async throws {
        try await withServer { server in
            try await withClient(nil) { client in
                var request = CourierHTTPRequest(method: .get, url: server.url("/get"))
                request.headers = ["X-Bad": "a\r\nb"]
                let error = await courierError { _ = try await client.send(request) }
                #expect(error?.kind == .invalidHeader)
                #expect(server.receivedRequests.isEmpty)
            }
        }
    }
}
