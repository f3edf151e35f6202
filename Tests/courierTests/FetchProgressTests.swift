import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import courier

@Suite("courier fetch -o: a progress line on a stderr terminal for a long transfer")
struct FetchProgressTests {
    /// A body dripped over two seconds, so that the command lasts longer than the quiet start
    /// however loaded the machine.
    private func slowURL(_ server: TestServer) -> String {
        server.url("/drip?numbytes=20000&duration=2").absoluteString
    }

    @Test("a transfer longer than the quiet start draws the line, ends it, and keeps the body as received")
    func longTransfer() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let path = folder.appendingPathComponent("slow.bin").path
            let run = await courierOnTerminal(["fetch", slowURL(server), "-o", path], stderrIsTerminal: true)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.progress.contains { $0.hasPrefix("19.5 KiB of 19.5 KiB (100 %)") }, "\(run.progress)")
            #expect(run.progress.last == "\n")
            #expect(run.stderr.isEmpty)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(repeating: UInt8(ascii: "*"), count: 20000))
        }
    }

    @Test(
        "nothing when stderr is not a terminal, with -s, or when the body goes to stdout",
        arguments: [(false, ["-o"]), (true, ["-s", "-o"]), (true, [])])
    func noLine(stderrIsTerminal: Bool, flags: [String]) async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer { server in
            let file = flags.last == "-o" ? [folder.appendingPathComponent("slow.bin").path] : []
            let run = await courierOnTerminal(["fetch", slowURL(server)] + flags + file, stderrIsTerminal: stderrIsTerminal)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.progress.isEmpty)
            #expect(run.stderr.isEmpty)
        }
    }

    @Test("-T sends the file as it is read, with a line of its own on a stderr terminal, ended before the answer")
    func uploadLine() async throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload.bin")
        try Data(repeating: 42, count: 300 * 1024).write(to: file)
        try await withServer { server in
            // No quiet start: the line shows however fast the loopback sends the file.
            let run = await BodyWriter.$progressDelay.withValue(.zero) {
                await courierOnTerminal(["fetch", "-T", file.path, server.url("/sink").absoluteString], stderrIsTerminal: true)
            }
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.progress.contains { $0.hasPrefix("300.0 KiB of 300.0 KiB (100 %)") }, "\(run.progress)")
            #expect(run.progress.last == "\n")
            #expect(run.stdout.contains("307200"), "\(run.stdout)")
            #expect(server.receivedRequests.last?.method == "PUT")
        }
    }

    @Test("the quiet start: nothing drawn before it, the line from then on")
    func quietStart() {
        let (output, captured) = Output.capturing(terminal: true)
        let start = ContinuousClock.now
        let clock = NIOLockedValueBox(start)
        let line = TransferProgressLine(output: output, quietUntil: start + .seconds(1), now: { clock.withLockedValue { $0 } })
        line.update(TransferProgress(completedBytes: 0, totalBytes: 100))
        clock.withLockedValue { $0 += .milliseconds(900) }
        line.update(TransferProgress(completedBytes: 50, totalBytes: 100))
        #expect(captured.progress.isEmpty)
        clock.withLockedValue { $0 += .milliseconds(100) }
        line.update(TransferProgress(completedBytes: 100, totalBytes: 100))
        line.finishLine()
        #expect(captured.progress.count == 2)
        #expect(captured.progress.first?.hasPrefix("100 B of 100 B (100 %)") == true)
        #expect(captured.progress.last == "\n")
    }
}
