// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierCachePostgres catalog; do not edit.

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
    /// Sources/CourierCachePostgres/CourierCachePostgres.docc/CourierCachePostgres.md, sample 1
    static func courierCachePostgres1(_ context: SampleContext) async throws {

        let storage = try PostgresCacheStorage(url: URL(string: "postgres://app@db.internal/app")!, maximumBytes: 2 << 30)
        var configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com")!)
        configuration.cache = CacheConfiguration(storage: storage)
        configuration.cache?.isShared = true  // RFC 9111's rules for a cache shared between users
        let client = CourierClient(configuration: configuration)
    }

    /// Sources/CourierCachePostgres/PostgresCacheStorage.swift, sample 1
    static func postgresCacheStorage1(_ context: SampleContext) async throws {
        let storage = try PostgresCacheStorage(url: URL(string: "postgres://app@db.internal/app")!, maximumBytes: 1 << 30)
        var configuration = ClientConfiguration()
        configuration.cache = CacheConfiguration(storage: storage)
    }
}
