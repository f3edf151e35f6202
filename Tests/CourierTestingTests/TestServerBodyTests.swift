import CourierTesting
import Foundation
import Testing

@Suite("TestServer body routes")
struct TestServerBodyTests {
    @Test func bytesAreDeterministic() async throws {
        try await withTestServer { server in
            let first = try await rawRequest(server.port, "GET", "/bytes/1000?seed=7")
            let second = try await rawRequest(server.port, "GET", "/bytes/1000?seed=7")
            let other = try await rawRequest(server.port, "GET", "/bytes/1000?seed=8")
            #expect(first.header("Content-Length") == "1000")
            #expect(first.header("Content-Type") == "application/octet-stream")
            #expect(first.body == TestServer.bytes(count: 1000, seed: 7))
            #expect(first.body == second.body)
            #expect(first.body != other.body)
            #expect(TestServer.bytes(count: 10) == Array(TestServer.bytes(count: 20).prefix(10)))

            let streamed = try await rawRequest(server.port, "GET", "/stream-bytes/100000?chunk_size=3000&seed=7")
            #expect(streamed.header("Transfer-Encoding") == "chunked")
            #expect(streamed.body == TestServer.bytes(count: 100_000, seed: 7))

            let large = try await rawRequest(server.port, "GET", "/bytes/3000000")
            #expect(large.body == TestServer.bytes(count: 3_000_000))
        }
    }

    @Test func gzipAndDeflateDecompress() async throws {
        try await withTestServer { server in
            let gzip = try await rawRequest(server.port, "GET", "/gzip", headers: ["Accept-Encoding: identity"])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(Array(gzip.body.prefix(2)) == [0x1F, 0x8B])
            let gzipJSON = try JSONSerialization.jsonObject(with: Data(try inflate(gzip.body))) as? [String: Any]
            #expect(gzipJSON?["gzipped"] as? Bool == true)
            #expect(gzipJSON?["method"] as? String == "GET")

            let deflate = try await rawRequest(server.port, "GET", "/deflate")
            #expect(deflate.header("Content-Encoding") == "deflate")
            #expect(deflate.body.first == 0x78)
            let deflateJSON = try JSONSerialization.jsonObject(with: Data(try inflate(deflate.body))) as? [String: Any]
            #expect(deflateJSON?["deflated"] as? Bool == true)

            let bomb = try await rawRequest(server.port, "GET", "/gzip-bomb?size=5000000")
            #expect(bomb.body.count < 100_000)
            let inflated = try inflate(bomb.body)
            #expect(inflated.count == 5_000_000)
            #expect(inflated.allSatisfy { $0 == 0 })
        }
    }

    @Test func rangeRequests() async throws {
        try await withTestServer { server in
            let resource = TestServer.bytes(count: 1000, seed: 3)
            let full = try await rawRequest(server.port, "GET", "/range/1000?seed=3")
            #expect(full.status == 200)
            #expect(full.body == resource)
            #expect(full.header("Accept-Ranges") == "bytes")
            let etag = try #require(full.header("ETag"))
            #expect(etag == "\"range-1000-3\"")
            let lastModified = try #require(full.header("Last-Modified"))

            let middle = try await rawRequest(server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=10-19"])
            #expect(middle.status == 206)
            #expect(middle.header("Content-Range") == "bytes 10-19/1000")
            #expect(middle.body == Array(resource[10..<20]))

            let open = try await rawRequest(server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=990-"])
            #expect(open.header("Content-Range") == "bytes 990-999/1000")
            #expect(open.body == Array(resource[990...]))

            let suffix = try await rawRequest(server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=-5"])
            #expect(suffix.header("Content-Range") == "bytes 995-999/1000")
            #expect(suffix.body == Array(resource[995...]))

            let unsatisfiable = try await rawRequest(server.port, "GET", "/range/1000", headers: ["Range: bytes=1000-"])
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.header("Content-Range") == "bytes */1000")

            let matching = try await rawRequest(
                server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=0-9", "If-Range: \(etag)"]
            )
            #expect(matching.status == 206)
            let byDate = try await rawRequest(
                server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=0-9", "If-Range: \(lastModified)"]
            )
            #expect(byDate.status == 206)
            let stale = try await rawRequest(
                server.port, "GET", "/range/1000?seed=3", headers: ["Range: bytes=0-9", "If-Range: \"other\""]
            )
            #expect(stale.status == 200)
            #expect(stale.body == resource)

            let slow = try await rawRequest(
                server.port, "GET", "/range/40000?chunk_delay=0.01&etag=v2", headers: ["Range: bytes=100-"]
            )
            #expect(slow.status == 206)
            #expect(slow.header("ETag") == "\"v2\"")
            #expect(slow.body == Array(TestServer.bytes(count: 40000)[100...]))
        }
    }

    @Test func cachingRoutes() async throws {
        try await withTestServer { server in
            let fresh = try await rawRequest(server.port, "GET", "/cache")
            #expect(fresh.status == 200)
            let lastModified = try #require(fresh.header("Last-Modified"))
            #expect(lastModified.hasSuffix(" GMT"))
            #expect(fresh.header("ETag") != nil)
            let revalidated = try await rawRequest(
                server.port, "GET", "/cache", headers: ["If-Modified-Since: \(lastModified)"]
            )
            #expect(revalidated.status == 304)
            #expect(revalidated.body.isEmpty)

            let maxAge = try await rawRequest(server.port, "GET", "/cache/60")
            #expect(maxAge.header("Cache-Control") == "public, max-age=60")

            let tagged = try await rawRequest(server.port, "GET", "/etag/abc")
            #expect(tagged.header("ETag") == "\"abc\"")
            let notModified = try await rawRequest(
                server.port, "GET", "/etag/abc", headers: ["If-None-Match: \"x\", W/\"abc\""]
            )
            #expect(notModified.status == 304)
            let star = try await rawRequest(server.port, "GET", "/etag/abc", headers: ["If-None-Match: *"])
            #expect(star.status == 304)
            let failed = try await rawRequest(server.port, "GET", "/etag/abc", headers: ["If-Match: \"zzz\""])
            #expect(failed.status == 412)
            let matched = try await rawRequest(server.port, "GET", "/etag/abc", headers: ["If-Match: \"abc\""])
            #expect(matched.status == 200)
        }
    }

    @Test func timedRoutesDeliverTheirBodies() async throws {
        try await withTestServer { server in
            let delayed = try await rawRequest(server.port, "GET", "/delay/0.05?q=1")
            #expect(delayed.status == 200)
            #expect((try delayed.jsonObject()["args"] as? [String: String])?["q"] == "1")

            let drip = try await rawRequest(server.port, "GET", "/drip?numbytes=5&duration=0.05&delay=0.01&code=201")
            #expect(drip.status == 201)
            #expect(drip.header("Content-Length") == "5")
            #expect(drip.text == "*****")

            let stream = try await rawRequest(server.port, "GET", "/stream/3")
            #expect(stream.header("Transfer-Encoding") == "chunked")
            let lines = stream.text.split(separator: "\n")
            #expect(lines.count == 3)
            let ids = try lines.map { line in
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
            }
            #expect(ids == [0, 1, 2])
        }
    }
}
