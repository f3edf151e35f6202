// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierWebSockets catalog; do not edit.

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
    /// Sources/CourierWebSockets/CourierWebSockets.docc/CourierWebSockets.md, sample 1
    static func courierWebSockets1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client

        func chat(_ client: CourierClient) async throws {
            try await client.webSocket(CourierRequest<Void>(path: "wss://chat.example/room/7")) { socket in
                try await socket.send("hello")
                for try await message in socket.messages {
                    switch message {
                    case .text(let text): print(text)
                    case .binary(let data): print("\(data.count) bytes")
                    }
                }
            }
        }
    }

    /// Sources/CourierWebSockets/CourierClient+WebSocket.swift, sample 1
    static func courierClientWebSocket1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let reply = try await client.webSocket(CourierRequest<Void>(path: "wss://echo.example/socket")) { socket -> CourierWebSocket.Message? in
            try await socket.send("hello")
            for try await message in socket.messages {
                return message
            }
            return nil
        }
        if let reply { print(reply) }
    }

    /// Sources/CourierWebSockets/CourierWebSocket.swift, sample 1
    static func courierWebSocket1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        try await client.webSocket(CourierRequest<Void>(path: "wss://example.com/feed")) { socket in
            try await socket.send("subscribe prices")
            for try await message in socket.messages {
                if case .text(let text) = message { print(text) }
            }
        }
    }
}
