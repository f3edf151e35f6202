import Courier
import CourierTesting
import Foundation
import InMemoryTracing
import Testing
import Tracing

/// Courier's spans, recorded by an in-memory tracer against the test server.
@Suite("Tracing: a span per request, a child per message")
struct TracingTests {
    /// Runs `body` with a client on a test server that records its spans in a new tracer.
    private func withTracer(
        configure: @escaping (inout ClientConfiguration) -> Void = { _ in },
        _ body: (TestServer, CourierClient, InMemoryTracer) async throws -> Void
    ) async throws {
        let tracer = InMemoryTracer()
        try await withServer { server in
            try await withClient(server) { configuration in
                configuration.tracer = tracer
                configure(&configuration)
            } _: { client in
                try await body(server, client, tracer)
            }
        }
    }

    /// The attribute `key` of `span`.
    private func attribute(_ span: FinishedInMemorySpan?, _ key: String) -> SpanAttribute? {
        span?.attributes[key]?.toSpanAttribute()
    }

    private func send(_ client: CourierClient, _ path: String, method: CourierHTTPMethod = .get) async throws -> CourierResponse {
        var request = CourierRequest<CourierResponse>(method: method, path: path)
        request.validators = []
        return try await client.send(request)
    }

    @Test func aRedirectedRequestIsOneSpanWithAChildPerMessageAndItsContextGoesOut() async throws {
        try await withTracer { server, client, tracer in
            _ = try await send(client, "/redirect/2")
            let spans = tracer.finishedSpans
            #expect(spans.count == 4)
            let parent = try #require(spans.first { $0.parentSpanID == nil })
            #expect(parent.operationName == "GET")
            #expect(parent.kind == .client)
            #expect(attribute(parent, "http.request.method") == .string("GET"))
            #expect(attribute(parent, "server.address") == .string("127.0.0.1"))
            #expect(attribute(parent, "server.port") == .int64(Int64(server.port)))
            #expect(attribute(parent, "http.response.status_code") == .int64(200))
            #expect(attribute(parent, "courier.response.source") == .string("network"))
            let messages = spans.filter { $0.parentSpanID == parent.spanID }
            #expect(messages.count == 3)
            #expect(messages.allSatisfy { $0.traceID == parent.traceID })
            #expect(messages.map { attribute($0, "http.response.status_code") } == [.int64(302), .int64(302), .int64(200)])
            #expect(messages.map { attribute($0, "http.request.resend_count") } == [nil, .int64(1), .int64(2)])
            // Each message carried its own span's context.
            let received = server.receivedRequests.map { $0.header(InMemoryTracer.spanIDKey) }
            #expect(received == messages.map(\.spanID))
            #expect(server.receivedRequests.allSatisfy { $0.header(InMemoryTracer.traceIDKey) == parent.traceID })
        }
    }

    @Test func aRequestJoinsTheTraceOfTheTaskThatSendsIt() async throws {
        try await withTracer { _, client, tracer in
            try await tracer.withSpan("handler") { _ in
                _ = try await send(client, "/status/204")
            }
            let spans = tracer.finishedSpans
            let handler = try #require(spans.first { $0.operationName == "handler" })
            let request = try #require(spans.first { $0.parentSpanID == handler.spanID })
            #expect(attribute(request, "http.response.status_code") == .int64(204))
            #expect(spans.contains { $0.parentSpanID == request.spanID })
        }
    }

    @Test func failuresAndErrorStatusesMarkTheSpans() async throws {
        try await withTracer { _, client, tracer in
            _ = try await send(client, "/status/503")
            _ = await courierError { _ = try await send(client, "http://127.0.0.1:9/nowhere") }
            let roots = tracer.finishedSpans.filter { $0.parentSpanID == nil }
            #expect(roots.count == 2)
            let unavailable = try #require(roots.first { attribute($0, "http.response.status_code") == .int64(503) })
            #expect(unavailable.status?.code == .error)
            #expect(attribute(unavailable, "error.type") == .string("503"))
            let refused = try #require(roots.first { attribute($0, "http.response.status_code") == nil })
            #expect(refused.status?.code == .error)
            #expect(attribute(refused, "error.type") == .string("connectionFailed"))
            #expect(!refused.errors.isEmpty)
            #expect(attribute(refused, "server.port") == .int64(9))
        }
    }

    @Test func cacheHitsAreSpansWithoutMessages() async throws {
        try await withTracer { configuration in
            configuration.cache = CacheConfiguration(storage: MemoryCacheStorage())
        } _: { _, client, tracer in
            let path = cacheable([("cc", "max-age=600")])
            _ = try await send(client, path)
            tracer.clearFinishedSpans()
            _ = try await send(client, path)
            let spans = tracer.finishedSpans
            #expect(spans.count == 1)
            #expect(attribute(spans.first, "courier.response.source") == .string("cache"))
        }
    }

    @Test func theURLHasNoUserInformationAndNoQueryValues() async throws {
        try await withTracer { server, client, tracer in
            let url = "http://user:secret@127.0.0.1:\(server.port)/status/200?api_key=s3cr3t&flag#part"
            _ = try await send(client, url)
            let root = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
            #expect(attribute(root, "url.full") == .string("http://127.0.0.1:\(server.port)/status/200?api_key=REDACTED&flag"))
        }
    }

    @Test func anUnknownMethodNamesNoSpan() async throws {
        try await withTracer { _, client, tracer in
            _ = try await send(client, "/status/200", method: "BREW")
            let root = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
            #expect(root.operationName == "HTTP")
            #expect(attribute(root, "http.request.method") == .string("_OTHER"))
            #expect(attribute(root, "http.request.method_original") == .string("\"BREW\""))
        }
    }
}
