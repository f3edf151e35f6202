// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierLimitsPostgres catalog; do not edit.

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
    /// Sources/CourierLimitsPostgres/CourierLimitsPostgres.docc/CourierLimitsPostgres.md, sample 1
    static func courierLimitsPostgres1(_ context: SampleContext) async throws {

        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.originBudget = try PostgresOriginBudget(
            url: URL(string: "postgres://app@db.internal/app")!,
            maximumConcurrentRequestsPerOrigin: 8,
            maximumRequestsPerSecondPerOrigin: 20
        )
        let client = CourierClient(configuration: configuration)
    }

    /// Sources/CourierLimitsPostgres/PostgresOriginBudget.swift, sample 1
    static func postgresOriginBudget1(_ context: SampleContext) async throws {
        var configuration = ClientConfiguration()
        configuration.originBudget = try PostgresOriginBudget(
            url: URL(string: "postgres://app@db.internal/app")!, maximumConcurrentRequestsPerOrigin: 8
        )
    }
}
