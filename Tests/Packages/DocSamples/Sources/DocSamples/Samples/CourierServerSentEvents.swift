// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierServerSentEvents catalog; do not edit.

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
    /// Sources/CourierServerSentEvents/CourierServerSentEvents.docc/CourierServerSentEvents.md, sample 1
    static func courierServerSentEvents1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client

        struct Price: Decodable { let symbol: String; let value: Double }

        func follow(_ client: CourierClient) async throws {
            for try await event in client.events(CourierRequest<Void>(path: "/prices")) where event.type == "price" {
                let price = try event.decode(Price.self)
                print(price.symbol, price.value)
            }
        }
    }

    /// Sources/CourierServerSentEvents/CourierServerSentEvents.docc/CourierServerSentEvents.md, sample 2
    static func courierServerSentEvents2(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var request = context.request
        _ = request
        let server = context.server
        _ = server
        func resume(_ client: CourierClient, after id: String) -> EventStream {
            var request = CourierRequest<Void>(path: "/notifications")
            request.headers.set(name: "Last-Event-ID", value: id)
            request.connection.readTimeout = .unlimited   // a server that sends no heartbeats
            return client.events(request, reconnection: .init(delay: .seconds(1), maximumAttempts: 20))
        }
    }

    /// Sources/CourierServerSentEvents/CourierClient+Events.swift, sample 1
    static func courierClientEvents1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let server = context.server
        _ = server
        var request = CourierRequest<Void>(path: "/v1/notifications")
        request.connection.readTimeout = .unlimited   // when the server sends no heartbeats
        for try await event in client.events(request) where event.type == "order" {
            let order = try event.decode(Order.self)
        }
    }

    /// Sources/CourierServerSentEvents/EventStream+Event.swift, sample 1
    static func eventStreamEvent1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        for try await event in client.events(CourierRequest<Void>(path: "/v1/orders")) {
            let order = try event.decode(Order.self)
        }
    }

    /// Sources/CourierServerSentEvents/EventStream.swift, sample 1
    static func eventStream1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        for try await event in client.events(CourierRequest<Void>(path: "/updates")) {
            print(event.type, event.data)
        }
    }
}
