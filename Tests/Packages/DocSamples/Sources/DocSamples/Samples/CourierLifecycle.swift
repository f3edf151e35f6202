// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierLifecycle catalog; do not edit.

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
    /// Sources/CourierLifecycle/CourierLifecycle.docc/CourierLifecycle.md, sample 1
    static func courierLifecycle1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let server = context.server
        _ = server
        let logger = context.logger
        _ = logger

        let client = CourierClient(configuration: configuration)
        let group = ServiceGroup(services: [ClientService(client: client), server], gracefulShutdownSignals: [.sigterm], logger: logger)
        try await group.run()
    }

    /// Sources/CourierLifecycle/ClientService.swift, sample 1
    static func clientService1(_ context: SampleContext) async throws {
        var configuration = context.configuration
        _ = configuration
        let server = context.server
        _ = server
        let logger = context.logger
        _ = logger
        let client = CourierClient(configuration: configuration)
        let group = ServiceGroup(
            services: [ClientService(client: client), server],
            gracefulShutdownSignals: [.sigterm], logger: logger
        )
        try await group.run()
    }
}
