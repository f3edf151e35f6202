// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierXML catalog; do not edit.

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
    /// Sources/CourierXML/CourierXML.docc/CourierXML.md, sample 1
    static func courierXML1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client

        let response = try await client.send(CourierRequest<CourierResponse>(path: "/feed.xml"))
        let titles = try response.xmlDocument().nodes(forXPath: "//item/title").compactMap(\.stringValue)
    }
}
