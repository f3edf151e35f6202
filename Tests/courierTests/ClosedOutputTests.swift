import CourierTesting
import Foundation
import Testing

/// `courier … | head -1`: the reader of standard output goes away while the body is written.
@Suite("courier: a closed standard output")
struct ClosedOutputTests {
    @Test("a reader that goes away ends the command with the write-error status, as curl's, never a crash")
    func closedPipe() async throws {
        try await TestServer.withServer { server in
            let process = Process()
            process.executableURL = try ChildProcess.courierExecutable()
            // A body far larger than a pipe's buffer, so that writes go on after the reader left.
            process.arguments = ["fetch", server.url("/stream-bytes/4000000?chunk_size=65536").absoluteString]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try ChildProcess.start(process)
            // Read a little, then close the read end, as `head -c` does.
            _ = try output.fileHandleForReading.read(upToCount: 1024)
            try output.fileHandleForReading.close()
            let child = ChildProcess(process: process, output: output)
            for _ in 0..<12_000 where process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            if process.isRunning { child.kill() }
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 23)
        }
    }
}
