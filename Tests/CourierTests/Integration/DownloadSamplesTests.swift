import Courier
import CourierTesting
import Foundation
import Testing

/// The download samples of the Uploads and downloads article, compiled and run against the
/// test server (its `/files/…` route stands in for the API; temporary folders for /var/…).
@Suite("Download samples")
struct DownloadSamplesTests {
    @Test func downloadingToAFile() async throws {
        try await withTemporaryFolder { exports in
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/files"))) { client in
                    let result = try await client.download(
                        CourierRequest<Void>(path: "/exports/2024.csv"),
                        to: .file(exports.appendingPathComponent("2024.csv"))
                    )
                    print("\(result.bytes) bytes in \(result.fileURL.path)")
                    #expect(result.bytes == 1000)
                    #expect(result.fileURL.lastPathComponent == "2024.csv")
                }
            }
        }
    }

    @Test func intoAFolderUnderTheServersName() async throws {
        try await withTemporaryFolder { reports in
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/files"))) { client in
                    let saved = try await client.download(
                        CourierRequest<Void>(path: "/reports/latest"),
                        to: .directory(reports)
                    )
                    #expect(saved.fileURL == reports.appendingPathComponent("latest"))
                }
            }
        }
    }

    @Test func pausingAndResumingAHandle() async throws {
        try await withTemporaryFolder { videos in
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/files"))) { client in
                    let handle = client.startDownload(
                        CourierRequest<Void>(path: "/videos/launch.mp4"),
                        to: .file(videos.appendingPathComponent("launch.mp4"))
                    )
                    handle.pause()
                    #expect(handle.isPaused)
                    handle.resume()
                    let video = try await handle.value
                    #expect(video.bytes == 1000)
                }
            }
        }
    }

    @Test func progressThroughTheOptions() async throws {
        try await withTemporaryFolder { exports in
            let exportFile = exports.appendingPathComponent("2024.csv")
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/files"))) { client in
                    let seen = Recorder<TransferProgress>()
                    let options = DownloadOptions(progress: { progress in
                        print("\(progress.completedBytes) of \(progress.totalBytes ?? 0) bytes")
                        seen.record(progress)
                    })
                    _ = try await client.download(CourierRequest<Void>(path: "/exports/2024.csv"), to: .file(exportFile), options: options)
                    #expect(seen.values.last == TransferProgress(completedBytes: 1000, totalBytes: 1000))
                }
            }
        }
    }
}
