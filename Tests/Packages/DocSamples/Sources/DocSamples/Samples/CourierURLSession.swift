// swift-format-ignore-file
// Written by scripts/doc-samples.py from the CourierURLSession catalog; do not edit.

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
    /// Sources/CourierURLSession/CourierURLSession.docc/CourierURLSession.md, sample 1
    static func courierURLSession1(_ context: SampleContext) async throws {

        let configuration = ClientConfiguration(baseURL: URL(string: "https://api.example.com"))
        let client = CourierClient(
            configuration: configuration,
            transport: try CourierURLSessionTransport(configuration: configuration),
            ownsTransport: true
        )
        let user = try await client.send(CourierRequest<JSONValue>(path: "/users/1"))
    }

    /// Sources/CourierURLSession/Background/BackgroundTransfers.swift, sample 1
    static func backgroundTransfers1(_ context: SampleContext) async throws {
        let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("Transfers in progress")
        let transport = try CourierURLSessionTransport(
            configuration: ClientConfiguration(),
            backgroundTransfers: BackgroundTransfers(identifier: "com.example.app.transfers", folder: folder)
        )
        let client = CourierClient(configuration: ClientConfiguration(), transport: transport, ownsTransport: true)
    }

    /// Sources/CourierURLSession/CourierURLSessionTransport.swift, sample 1
    static func courierURLSessionTransport1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        let settings = ClientConfiguration(baseURL: URL(string: "https://api.example.com"))
        let name = try await CourierClient.withClient(configuration: settings, transport: try CourierURLSessionTransport(configuration: settings)) { client in
            try await client.send(CourierRequest<JSONValue>(path: "/users/1"))["name"]
        }
    }

    /// Sources/CourierURLSession/ResumeData/URLSessionResumeData.swift, sample 1
    static func uRLSessionResumeData1(_ context: SampleContext) async throws {
        let client = context.client
        _ = client
        func continueDownload(from data: Data, to file: URL, with client: CourierClient) async throws -> DownloadResult {
            let resumeData = try URLSessionResumeData(data)
            try resumeData.adopt(into: .file(file))
            return try await client.download(CourierRequest<Void>(path: resumeData.url.absoluteString), to: .file(file))
        }
    }
}
