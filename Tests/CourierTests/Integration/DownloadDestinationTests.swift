import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("Download destinations")
struct DownloadDestinationTests {
    /// A server-suggested name and what must come of it: a file of this name in the folder, or
    /// (nil) a typed error.
    struct Attack: Sendable, CustomStringConvertible {
        var disposition: String
        var expected: String?
        var description: String { disposition }
    }

    static let attacks: [Attack] = [
        Attack(disposition: "attachment; filename=\"../escape.txt\"", expected: "escape.txt"),
        Attack(disposition: "attachment; filename=\"../../../../tmp/escape.txt\"", expected: "escape.txt"),
        Attack(disposition: "attachment; filename=\"..\\\\escape.txt\"", expected: "escape.txt"),
        Attack(disposition: "attachment; filename=\"C:\\\\Windows\\\\escape.txt\"", expected: "escape.txt"),
        Attack(disposition: "attachment; filename=\"/etc/passwd\"", expected: "passwd"),
        Attack(disposition: "attachment; filename*=UTF-8''%2e%2e%2fescape.txt", expected: "escape.txt"),
        Attack(disposition: "attachment; filename*=UTF-8''%2F%2Fetc%2Fpasswd", expected: "passwd"),
        Attack(disposition: "attachment; filename=\"%2e%2e%2fescape.txt\"", expected: "%2e%2e%2fescape.txt"),
        Attack(disposition: "attachment; filename*=UTF-8''nul%00.txt", expected: nil),
        Attack(disposition: "attachment; filename*=UTF-8''line%0Abreak.txt", expected: nil),
        Attack(disposition: "attachment; filename*=UTF-8''escape%1B%5B2J.txt", expected: nil),
        Attack(disposition: "attachment; filename=\".bashrc\"", expected: "bashrc"),
        Attack(disposition: "attachment; filename*=UTF-8''evil%E2%80%AEgpj.exe", expected: nil),
        Attack(disposition: "attachment; filename*=UTF-8''csi%C2%9B31m.txt", expected: nil),
        Attack(disposition: "attachment; filename=\"-rf\"", expected: "rf"),
        Attack(disposition: "attachment; filename=\"\(String(repeating: "n", count: 400)).txt\"", expected: String(repeating: "n", count: 251) + ".txt"),
        Attack(disposition: "attachment; filename=\"..\"", expected: nil),
        Attack(disposition: "attachment; filename=\"../\"", expected: nil),
        Attack(disposition: "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC.txt", expected: "€.txt"),
    ]

    /// Downloads `/range/64` with `disposition` into `jail/folder` and returns the outcome.
    private func download(
        disposition: String, into folder: URL, server: TestServer, client: CourierClient, overwrite: Bool = false
    ) async -> Result<DownloadResult, CourierError> {
        let header = "Content-Disposition:\(disposition)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        do {
            let result = try await client.download(
                CourierRequest<Void>(path: "/range/64?seed=1&header=\(header)"), to: .directory(folder),
                options: DownloadOptions(overwritesExistingFile: overwrite)
            )
            return .success(result)
        } catch let error as CourierError {
            return .failure(error)
        } catch {
            Issue.record("an error that is not a CourierError: \(error)")
            return .failure(CourierError(.transport, "\(error)"))
        }
    }

    @Test("every Content-Disposition attack ends inside the folder or in a typed error", arguments: attacks)
    func attacksStayInside(attack: Attack) async throws {
        try await withTemporaryFolder { jail in
            let folder = jail.appendingPathComponent("downloads")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try await withServer { server in
                try await withClient(server) { client in
                    let outcome = await download(disposition: attack.disposition, into: folder, server: server, client: client)
                    switch (outcome, attack.expected) {
                    case (.success(let result), let expected?):
                        #expect(result.fileURL.lastPathComponent == expected)
                        #expect(result.fileURL.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path)
                        #expect(PartialFile.length(of: result.fileURL) == 64)
                        #expect(contents(of: folder) == [expected])
                    case (.failure(let error), nil):
                        #expect(error.kind == .invalidDestination)
                        #expect(contents(of: folder).isEmpty)
                    case (.success(let result), nil):
                        Issue.record("\(attack) was accepted as \(result.fileURL.path)")
                    case (.failure(let error), let expected?):
                        Issue.record("\(attack) failed instead of giving \(expected): \(error)")
                    }
                    // Nothing was written beside the folder.
                    #expect(contents(of: jail) == ["downloads"])
                }
            }
        }
    }

    @Test("a server name that matches an existing file does not replace it unless asked")
    func existingFile() async throws {
        try await withDownloadSetup { folder, server, client in
            let existing = folder.appendingPathComponent("report.txt")
            try Data("keep".utf8).write(to: existing)
            let outcome = await download(disposition: "attachment; filename=report.txt", into: folder, server: server, client: client)
            guard case .failure(let error) = outcome else {
                Issue.record("the existing file was replaced")
                return
            }
            #expect(error.kind == .invalidDestination)
            let existingContents = try Data(contentsOf: existing)
            #expect(existingContents == Data("keep".utf8))
            #expect(contents(of: folder) == ["report.txt"])

            let replaced = await download(disposition: "attachment; filename=report.txt", into: folder, server: server, client: client, overwrite: true)
            let replacedBytes = try replaced.get().bytes
            #expect(replacedBytes == 64)
            #expect(PartialFile.length(of: existing) == 64)
        }
    }

    @Test("a symbolic link in the folder is never followed")
    func symbolicLink() async throws {
        try await withTemporaryFolder { jail in
            let folder = jail.appendingPathComponent("downloads")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let target = jail.appendingPathComponent("target.txt")
            try Data("target".utf8).write(to: target)
            let link = folder.appendingPathComponent("link.txt")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            try await withServer { server in
                try await withClient(server) { client in
                    let refused = await download(disposition: "attachment; filename=link.txt", into: folder, server: server, client: client)
                    guard case .failure(let error) = refused else {
                        Issue.record("the link was written through")
                        return
                    }
                    #expect(error.kind == .invalidDestination)
                    let targetContents = try Data(contentsOf: target)
                    #expect(targetContents == Data("target".utf8))

                    // Even when overwriting is allowed, the link itself is replaced, not followed.
                    let replaced = await download(disposition: "attachment; filename=link.txt", into: folder, server: server, client: client, overwrite: true)
                    let replacedFile = try replaced.get().fileURL
                    #expect(replacedFile == link)
                    let targetAfterOverwrite = try Data(contentsOf: target)
                    #expect(targetAfterOverwrite == Data("target".utf8))
                    #expect(PartialFile.length(of: link) == 64)
                }
            }
        }
    }

    @Test("a link planted where the partial file goes is removed, never written through")
    func linkAtThePartialFile() async throws {
        try await withTemporaryFolder { jail in
            let folder = jail.appendingPathComponent("downloads")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let target = jail.appendingPathComponent("target.txt")
            try Data("target".utf8).write(to: target)
            try await withServer { server in
                let destination = folder.appendingPathComponent("file.bin")
                let path = "/range/1000?seed=1"
                let working = workingFiles(.file(destination), server.url(path))
                try FileManager.default.createSymbolicLink(at: working.partial, withDestinationURL: target)
                try ResumeRecord(url: server.url(path).absoluteString, entityTag: "\"range-1000-1\"", bytesReceived: 6, totalBytes: 1000)
                    .save(to: working.record)
                try await withClient(server) { client in
                    let result = try await client.download(CourierRequest<Void>(path: path), to: .file(destination))
                    // The link is not a partial file: the download starts from zero in a new file.
                    #expect(result.response.status == 200)
                    let digest = try sha256(ofFileAt: destination)
                    #expect(digest == sha256(ofGenerated: 1000, seed: 1))
                    let targetContents = try Data(contentsOf: target)
                    #expect(targetContents == Data("target".utf8))
                    #expect(contents(of: folder) == ["file.bin"])
                }
            }
        }
    }
}
