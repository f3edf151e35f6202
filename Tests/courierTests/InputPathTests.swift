import Courier
import CourierTesting
import Foundation
import Testing

@testable import courier

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension WrongPath {
    /// Files a command reads, given a FIFO, a folder, a socket or nothing: the path is checked
    /// by kind (see `PathCheckTests`).
    static let inputs: [WrongPath] =
        cases(["fetch", "URL", "--data", "@PATH"], "--data @PATH", [.fifo, .folder, .socket, .inMissingFolder, .underAFile])
        + cases(["fetch", "URL", "--json", "@PATH"], "--json @PATH", [.fifo, .folder, .socket])
        + cases(["fetch", "URL", "--data", "@PATH", "--durable", "--queue", "FOLDER/q.sqlite"], "--data @PATH", [.fifo, .folder])
        + cases(["fetch", "URL", "--file", "upload=@PATH"], "--file upload=@PATH", [.fifo, .folder, .socket])
        + cases(["fetch", "URL", "--form", "a=b", "--file", "upload=@PATH;type=text/plain"], "--file upload=@PATH", [.fifo])
        + cases(["batch", "PATH"], "PATH", [.fifo, .folder, .socket])
        + cases(["fetch", "URL", "--cacert", "PATH"], "--cacert PATH", [.fifo, .folder, .socket])
        + cases(["download", "URL", "-o", "FOLDER/x", "--cacert", "PATH"], "--cacert PATH", [.fifo, .folder])
        + cases(["batch", "BATCH", "--cacert", "PATH"], "--cacert PATH", [.fifo, .folder])
        + cases(["fetch", "URL", "--cert", "PATH"], "--cert PATH", [.fifo, .folder, .socket])
        + cases(["fetch", "URL", "--cert", "BATCH", "--key", "PATH"], "--key PATH", [.fifo, .folder])
        + cases(["download", "URL", "-o", "FOLDER/x", "--p12", "PATH"], "--p12 PATH", [.fifo, .folder, .socket])
}

/// Opens `path` for writing without waiting, over and over, until cancelled: each open that
/// succeeds (because something is reading) is closed at once, which gives the reader an end of
/// file.
func keepOpeningForWriting(_ path: String) async {
    while !Task.isCancelled {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK)
        if descriptor >= 0 { close(descriptor) }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

@Suite("courier: files the command reads")
struct InputPathTests {
    @Test("a regular file is read, through a symbolic link too")
    func regularFilesAndLinksAreRead() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("body.txt")
        try Data("payload".utf8).write(to: file)
        let link = folder.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        try await withServer { server in
            let run = await courier("fetch", server.url("/post").absoluteString, "--data", "@\(link.path)", "--report", "json")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(server.receivedRequests.last?.bodyString == "payload")
        }
    }
}
