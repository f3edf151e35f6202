import Courier
import CourierTesting
import Foundation
import Testing

@testable import CourierImages

@Suite("Image loader", .timeLimit(.minutes(2)))
struct ImageLoaderTests {
    @Test("Identical loads at once share one request and one decode, even with the client's own sharing off")
    func identicalLoadsShareOneRequest() async throws {
        try await withLoader(coalescing: false) { server, loader in
            server.publish([UInt8](try Fixture.jpeg.data), at: "photo", contentType: "image/jpeg")
            let callers = 12
            let images = try await withThrowingTaskGroup(of: CourierImage.self) { group in
                for _ in 0..<callers {
                    group.addTask { try await loader.image(at: "/content/photo?gate=open", maxPixelSize: 64) }
                }
                try await waitUntil { await loader.waiting.callers == callers && server.requestsWaiting(atGate: "open") == 1 }
                #expect(await loader.waiting.loads == 1)
                server.openGate("open")
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(images.count == callers)
            #expect(images.allSatisfy { $0.width == 64 && $0.height == 48 })
            #if !canImport(ImageIO)
            #expect(Set(images.map(\.bitmap)).count == 1)
            #endif
            #expect(server.receivedRequests.filter { $0.uri.hasPrefix("/content/photo") }.count == 1)
            #expect(await loader.waiting == (0, 0))
        }
    }

    @Test("The same image at two sizes is two decodes, each at its size")
    func twoSizesAreTwoDecodes() async throws {
        try await withLoader { server, loader in
            server.publish([UInt8](try Fixture.rgbaPNG.data), at: "photo", contentType: "image/png")
            async let small = loader.image(at: "/content/photo", maxPixelSize: 40)
            async let large = loader.image(at: "/content/photo", maxPixelSize: 320)
            let (a, b) = try await (small, large)
            #expect(a.width == 40 && a.height == 30)
            #expect(b.width == 320 && b.height == 240)
        }
    }

    @Test("A cancelled caller stops waiting at once; the others still get the image")
    func aCancelledCallerLeavesTheOthersTheirImage() async throws {
        try await withLoader { server, loader in
            server.publish([UInt8](try Fixture.jpeg.data), at: "photo", contentType: "image/jpeg")
            let path = "/content/photo?gate=late"
            let staying = (0..<2).map { _ in Task { try await loader.image(at: path, maxPixelSize: 50) } }
            let leaving = Task { try await loader.image(at: path, maxPixelSize: 50) }
            try await waitUntil { await loader.waiting.callers == 3 }
            leaving.cancel()
            // The gate is still shut: this returns only because cancelling ended the wait.
            let error = await #expect(throws: CourierError.self) { try await leaving.value }
            #expect(error?.kind == .cancelled)
            #expect(await loader.waiting.callers == 2)
            server.openGate("late")
            for task in staying {
                #expect(try await task.value.width == 50)
            }
        }
    }

    @Test("When every caller is cancelled the load ends, and the next load of that image starts afresh")
    func whenEveryCallerLeavesTheLoadEnds() async throws {
        // The client's own sharing is off: with it on, the second load could join the first
        // request while the client is still ending it, and rightly reach the server once.
        try await withLoader(coalescing: false) { server, loader in
            server.publish([UInt8](try Fixture.jpeg.data), at: "photo", contentType: "image/jpeg")
            let path = "/content/photo?gate=never-first"
            let only = Task { try await loader.image(at: path, maxPixelSize: 50) }
            try await waitUntil { await loader.waiting.callers == 1 && server.requestsWaiting(atGate: "never-first") == 1 }
            only.cancel()
            await #expect(throws: CourierError.self) { try await only.value }
            #expect(await loader.waiting == (0, 0))
            server.openGate("never-first")
            let again = try await loader.image(at: path, maxPixelSize: 50)
            #expect(again.width == 50)
            #expect(server.receivedRequests.filter { $0.uri == path }.count == 2)
        }
    }

    @Test("A body that is no image fails as decodingFailed, with the response attached")
    func aBodyThatIsNoImageFails() async throws {
        try await withLoader { _, loader in
            let error = await #expect(throws: CourierError.self) { _ = try await loader.image(at: "/html", maxPixelSize: 50) }
            #expect(error?.kind == .decodingFailed)
            #expect(error?.response?.status == 200)
            #expect((error?.underlyingError as? ImageDecodingError)?.reason == .unsupportedFormat)
        }
    }

    @Test("A failed request is the client's error, shared by every caller, and nothing stays in flight")
    func aFailedRequestIsTheClientsError() async throws {
        try await withLoader { _, loader in
            let callers = (0..<2).map { _ in Task { try await loader.image(at: "/status/404", maxPixelSize: 50) } }
            for caller in callers {
                let error = await #expect(throws: CourierError.self) { try await caller.value }
                #expect(error?.kind == .validationFailed)
            }
            #expect(await loader.waiting == (0, 0))
        }
    }

    @Test("A request with a body, or that opts out of sharing, is loaded on its own")
    func unsharedRequestsLoadAlone() async throws {
        try await withLoader { server, loader in
            server.publish([UInt8](try Fixture.jpeg.data), at: "photo", contentType: "image/jpeg")
            var request = CourierRequest<Data>(path: "/content/photo")
            request.allowsCoalescing = false
            #expect(ImageLoader.Key(request, maxPixelSize: 10) == nil)
            #expect(try await loader.image(for: request, maxPixelSize: 10).width == 10)
            var posted = CourierRequest<Data>(method: .post, path: "/content/photo", body: .text("x"))
            posted.allowsCoalescing = true
            #expect(ImageLoader.Key(posted, maxPixelSize: 10) == nil)
            #expect(ImageLoader.Key(CourierRequest<Data>(path: "/content/photo"), maxPixelSize: 10) != nil)
        }
    }

    private func withLoader(coalescing: Bool = true, _ body: (TestServer, ImageLoader) async throws -> Void) async throws {
        try await TestServer.withServer { server in
            var configuration = ClientConfiguration(baseURL: server.baseURL)
            configuration.coalescesRequests = coalescing
            try await CourierClient.withClient(configuration: configuration) { client in
                try await body(server, ImageLoader(client: client))
            }
        }
    }

    /// Polls `condition` every 10 ms, for at most a minute.
    private func waitUntil(_ condition: () async -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<6000 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("The condition never held.", sourceLocation: sourceLocation)
    }
}
