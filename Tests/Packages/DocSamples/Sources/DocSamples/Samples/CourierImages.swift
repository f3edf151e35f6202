// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierImages catalog; do not edit.

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
    /// Sources/CourierImages/CourierImages.docc/CourierImages.md, sample 1
    static func courierImages1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let images = ImageLoader(client: client)
        let thumbnail = try await images.image(at: "/photos/42.jpg", maxPixelSize: 240)
        print(thumbnail.width, thumbnail.height, thumbnail.sourceWidth, thumbnail.sourceHeight)
    }

    /// Sources/CourierImages/CourierImages.docc/CourierImages.md, sample 2
    static func courierImages2(_ context: SampleContext) async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/tmp/photo.jpg"))
        let preview = try await ImageLoader.image(from: data, maxPixelSize: 64)
    }

    /// Sources/CourierImages/CourierImages.docc/CourierImages.md, sample 3
    static func courierImages3(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        var limits = ImageLoader.Limits()
        limits.maximumSourcePixels = 24_000_000
        let strict = ImageLoader(client: client, limits: limits)
        do {
            _ = try await strict.image(at: "/uploads/avatar", maxPixelSize: 96)
        } catch let error as CourierError where error.kind == .decodingFailed {
            if (error.underlyingError as? ImageDecodingError)?.reason == .tooLarge {
                print("too large to show:", error.message)
            }
        }
    }

    /// Sources/CourierImages/ImageLoader.swift, sample 1
    static func imageLoader1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let images = ImageLoader(client: client)
        let thumbnail = try await images.image(at: "/photos/42.jpg", maxPixelSize: 240)
        print(thumbnail.width, thumbnail.height)  // at most 240 on the longest side
    }
}
