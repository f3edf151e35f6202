// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierOpenAPI catalog; do not edit.

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
    /// Sources/CourierOpenAPI/CourierOpenAPI.docc/CourierOpenAPI.md, sample 1
    static func courierOpenAPI1(_ context: SampleContext) async throws {
        let password = context.password
        _ = password

        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.authentication = Authentication(.password(user: "ada", password: password))
        configuration.retryPolicy = .retries(2)
        configuration.cache = CacheConfiguration()

        let courier = CourierClient(configuration: configuration)
        let api = Client(serverURL: URL(string: "https://api.example.com")!, transport: CourierClientTransport(courier))
        let login = try await api.checkLogin(path: .init(user: "ada", password: password)).ok.body.json
        try await courier.shutdown()
    }

    /// Sources/CourierOpenAPI/CourierClientTransport.swift, sample 1
    static func courierClientTransport1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let courier = CourierClient(configuration: configuration)
        let api = Client(serverURL: try Servers.Server1.url(), transport: CourierClientTransport(courier))
        let item = try await api.getItem(path: .init(item: "42")).ok.body.json
    }
}
