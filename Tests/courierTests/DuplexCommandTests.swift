import CourierTesting
import Foundation
import Testing

/// `courier fetch -T -` sends standard input as it is read and prints the response as it
/// arrives, so a command whose input answers its output works both ways at once.
@Suite("courier: standard input sent while it is read")
struct DuplexCommandTests {
    /// `/duplex`, and the conformance suite's echo of the standard client API.
    @Test("each line written to courier's input comes back on its output before the next is written", arguments: ["/duplex", "/conformance/echo"])
    func takesTurnsThroughPipes(route: String) async throws {
        try await withServer { server in
            let process = Process()
            process.executableURL = try ChildProcess.courierExecutable()
            process.arguments = ["fetch", server.url(route).absoluteString, "-T", "-", "--max-time", "60"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try ChildProcess.start(process)
            // Should a turn never come, the child is killed and the reads below end.
            let guardian = Task {
                try await Task.sleep(for: .seconds(90))
                if process.isRunning { process.terminate() }
            }
            defer { guardian.cancel() }
            var echoed = Data()
            for round in 1...5 {
                let line = Data("line \(round)\n".utf8)
                try input.fileHandleForWriting.write(contentsOf: line)
                var received = Data()
                while received.count < line.count {
                    let piece = await readSome(output.fileHandleForReading)
                    guard !piece.isEmpty else { break }
                    received += piece
                }
                #expect(received == line, "round \(round): the echo came before the next line was written")
                echoed += received
            }
            try input.fileHandleForWriting.close()
            let rest = await readAll(output.fileHandleForReading)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(rest.isEmpty)
            #expect(echoed == Data((1...5).map { "line \($0)\n" }.joined().utf8))
            let recorded = try #require(server.receivedRequests.last)
            #expect(recorded.method == "PUT")
            #expect(recorded.header("Transfer-Encoding")?.lowercased() == "chunked")
        }
    }
}

/// What `handle` has or next gets, read off Swift's pool; empty at its end.
private func readSome(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: handle.availableData) }
    }
}

/// The rest of `handle`, read off Swift's pool.
private func readAll(_ handle: FileHandle) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: handle.readDataToEndOfFile()) }
    }
}
