// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierTesting catalog; do not edit.

import CoreMetrics
import Courier
import CourierImages
import CourierLifecycle
import CourierLimitsPostgres
import CourierOpenAPI
import CourierQueue
import CourierCachePostgres
import CourierQueuePostgres
import CourierServerSentEvents
import CourierTesting
import CourierURLSession
import CourierWebSockets
import CourierXML
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

extension Samples {
    /// Sources/CourierTesting/RecordingClock.swift, sample 1
    static func recordingClock1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let clock = RecordingClock()
        configuration.clock = clock
        configuration.retryPolicy = .retries(1)
        let client = CourierClient(configuration: configuration)
        _ = try await client.send(CourierRequest<Data>(path: "/flaky?failures=1&retry_after=2"))
        #expect(clock.sleeps == [.seconds(2)])
    }

    /// Sources/CourierTesting/TestServer+Scoped.swift, sample 1
    static func testServerScoped1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let server = context.server
        _ = server
        try await TestServer.withServer { server in
            try await CourierClient.withClient(configuration: ClientConfiguration(baseURL: server.baseURL)) { client in
                _ = try await client.send(CourierRequest<Data>(path: "/get"))
            }
        }
    }

    /// Sources/CourierDemoServer/IdempotencyLedger.swift, sample 1
    static func idempotencyLedger1(_ context: SampleContext) async throws {
        let ledger = IdempotencyLedger()
        let first = try await TestServer.start(ledger: ledger)
        try await first.shutdown()
        let second = try await TestServer.start(port: first.port, ledger: ledger)
    }
}

// Sources/CourierTesting/CourierTesting.docc/CourierTesting.md, sample 1

@Test func profileIsDecoded() async throws {
    try await TestServer.withServer { server in
        try await CourierClient.withClient(configuration: ClientConfiguration(baseURL: server.baseURL)) { client in
            let response = try await client.send(CourierRequest<CourierResponse>(path: "/anything/profile"))
            #expect(response.status == 200)
            #expect(server.receivedRequests.last?.path == "/anything/profile")
        }
    }
}
