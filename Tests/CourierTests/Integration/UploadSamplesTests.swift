import Courier
import CourierTesting
import Foundation
import Testing

/// The samples of the Uploads and downloads article, compiled and run against the test
/// server (its `/anything` route stands in for the API; a temporary folder for /var/uploads).
@Suite("Upload samples")
struct UploadSamplesTests {
    @Test func sendingAFormWithFiles() async throws {
        try await withTemporaryFolder { uploads in
            let portrait = uploads.appendingPathComponent("portrait.jpg")
            try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: portrait)
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/anything"))) { client in
                    var form = MultipartForm()
                    form.addField("Ada Lovelace", named: "name")
                    form.addFile(at: portrait, named: "avatar")
                    form.addData(Data("a,b\n1,2\n".utf8), named: "table", filename: "table.csv")

                    let request = CourierRequest<CourierResponse>(method: .post, path: "/profile", body: try .multipart(form))
                    let response = try await client.send(request)

                    let echo = try response.decode(Echo.self)
                    #expect(echo.form["name"] == "Ada Lovelace")
                    #expect(echo.url.hasSuffix("/anything/profile"))
                    let parts = server.receivedRequests.last?.bodyString ?? ""
                    #expect(parts.contains("filename=\"portrait.jpg\"\r\nContent-Type: image/jpeg\r\n"))
                    #expect(parts.contains("filename=\"table.csv\"\r\nContent-Type: text/csv\r\n"))
                }
            }
        }
    }

    @Test func anUnreadableFileIsRefusedWhenTheBodyIsMade() {
        var form = MultipartForm()
        form.addFile(at: URL(fileURLWithPath: "/var/uploads/portrait.jpg"), named: "avatar")
        var request = CourierRequest<CourierResponse>(method: .post, path: "/profile")
        var message = ""
        do throws(CourierError) {
            request.body = try .multipart(form)
        } catch {
            message = error.message
        }
        #expect(message.hasPrefix("The file /var/uploads/portrait.jpg cannot be read ("))
        #expect(request.body == nil)
    }

    @Test func aChosenBoundary() throws {
        var fixture = try MultipartForm(boundary: "fixture-boundary")
        fixture.addField("1", named: "id")
        #expect(fixture.contentType == "multipart/form-data; boundary=fixture-boundary")
    }

    @Test func progressThroughACallbackAndThroughTheHandle() async throws {
        try await withTemporaryFolder { uploads in
            let video = uploads.appendingPathComponent("clip.mp4")
            try Data(repeating: 1, count: 300_000).write(to: video)
            var form = MultipartForm()
            form.addFile(at: video, named: "video")
            let lines = Recorder<String>()
            try await TestServer.withServer { server in
                try await CourierClient.withClient(configuration: .init(baseURL: server.url("/anything"))) { client in
                    var upload = CourierRequest<CourierResponse>(method: .post, path: "/videos", body: try .multipart(form))
                    upload.uploadProgress = { progress in
                        lines.record("\(progress.completedBytes) of \(progress.totalBytes ?? 0) bytes")
                    }
                    _ = try await client.send(upload)
                    let total = try #require(upload.body?.length)
                    #expect(lines.values.last == "\(total) of \(total) bytes")

                    let handle = client.start(upload)
                    var percentages: [String] = []
                    for await progress in handle.uploadProgress {
                        percentages.append("\(Int((progress.fractionCompleted ?? 0) * 100)) %")
                    }
                    let response = try await handle.value
                    #expect(response.status == 200)
                    #expect(percentages.last == "100 %")
                }
            }
        }
    }
}
