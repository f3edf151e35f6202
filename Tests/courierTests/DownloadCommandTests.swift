import Courier
import CourierTesting
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import courier

@Suite("courier download")
struct DownloadCommandTests {
    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-download-\(UUID().uuidString)")

    private func makeFolder() throws -> URL {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test func downloadsToAPathAndPrintsIt() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeFolder().appendingPathComponent("out.bin").path
        try await withServer { server in
            let run = await courier("download", server.url("/range/300000?seed=3").absoluteString, "-o", path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == path + "\n")
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 300_000, seed: 3)))
            // Not a terminal: plain lines on stderr, the last at 100 %.
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.last?.hasPrefix("293.0 KiB of 293.0 KiB (100 %)") == true, "\(run.stderr)")
            #expect(lines.count <= 11)
        }
    }

    @Test func dirUsesTheServersSafeName() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = try makeFolder()
        try await withServer { server in
            let header = "Content-Disposition:attachment; filename=\"../report.csv\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let run = await courier("download", server.url("/range/1000?header=\(header)").absoluteString, "--dir", dir.path)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == dir.appendingPathComponent("report.csv").path + "\n")
            #expect(files() == ["report.csv"])

            let again = await courier("download", server.url("/range/1000?header=\(header)").absoluteString, "--dir", dir.path)
            #expect(again.status == ExitStatus.writeError.rawValue)
            #expect(again.stderr.contains("already exists"))
            let replaced = await courier("download", server.url("/range/1000?header=\(header)").absoluteString, "--dir", dir.path, "--overwrite")
            #expect(replaced.status == 0)
        }
    }

    @Test func aTerminalGetsARedrawnBar() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeFolder().appendingPathComponent("bar.bin").path
        try await withServer { server in
            let (output, captured) = Output.capturing(terminal: true)
            let status = await CourierCLI.run(["download", server.url("/range/200000").absoluteString, "-o", path], output: output)
            #expect(status == 0)
            let drawn = captured.progressLines.withLockedValue { $0 }
            #expect(drawn.contains { $0.hasPrefix("195.3 KiB of 195.3 KiB (100 %)") }, "\(drawn)")
            #expect(drawn.last == "\n")
            #expect(captured.stderr.isEmpty)
        }
    }

    @Test func aDroppedDownloadContinuesWithResume() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeFolder().appendingPathComponent("dropped.bin").path
        try await withServer { server in
            let url = server.url("/range/500000?seed=4&drops=1&drop_at=200000&chunk_delay=0.001").absoluteString
            let first = await courier("download", url, "-o", path, "--attempts", "1")
            #expect(first.status == ExitStatus.partialBody.rawValue, "\(first.stderr)")
            #expect(files() == ["dropped.bin.courier-partial", "dropped.bin.courier-resume"])

            let kept = try #require((FileManager.default.attributesOfItem(atPath: path + ".courier-partial")[.size] as? NSNumber)?.intValue)
            #expect(kept == 200_000)

            let resumed = await courier("download", url, "-o", path, "--resume")
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(server.receivedRequests.last?.header("Range") == "bytes=\(kept)-")
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 500_000, seed: 4)))
            #expect(files() == ["dropped.bin"])
        }
    }

    @Test func withoutResumeAPartialFileIsStartedAgain() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeFolder().appendingPathComponent("fresh.bin").path
        try await withServer { server in
            let url = server.url("/range/100000?seed=4&drops=1&drop_at=40000").absoluteString
            _ = await courier("download", url, "-o", path, "--attempts", "1")
            let again = await courier("download", url, "-o", path)
            #expect(again.status == 0)
            #expect(server.receivedRequests.last?.header("Range") == nil)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 100_000, seed: 4)))
        }
    }

    @Test("an interrupted download (what Ctrl-C does: cancel it) keeps its partial file for --resume")
    func interruptionKeepsThePartialFile() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try makeFolder().appendingPathComponent("slow.bin").path
        try await withServer { server in
            // The server paces the body; the test interrupts once a tenth has arrived.
            let url = server.url("/range/2000000?seed=5&chunk_delay=0.01").absoluteString
            let (tenth, reached) = AsyncStream<Void>.makeStream()
            let captured = NIOLockedValueBox("")
            let output = Output(
                out: { _ in },
                error: { line in
                    captured.withLockedValue { $0 += line + "\n" }
                    if line.contains(" %)"), !line.contains("(0 %)") { reached.yield() }
                }
            )
            let run = Task { await CourierCLI.run(["download", url, "-o", path], output: output) }
            for await _ in tenth { break }
            run.cancel()
            let status = await run.value
            #expect(status == ExitStatus.interrupted.rawValue)
            #expect(captured.withLockedValue { $0 }.contains("--resume"))
            #expect(files() == ["slow.bin.courier-partial", "slow.bin.courier-resume"])

            let resumed = await courier("download", url, "-o", path, "--resume")
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(server.receivedRequests.last?.header("Range")?.hasPrefix("bytes=") == true)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written == Data(TestServer.bytes(count: 2_000_000, seed: 5)))
        }
    }

    @Test func aCacheFolderFilledByFetchStartsTheDownload() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let dir = try makeFolder()
        let cache = dir.appendingPathComponent("cache").path
        try await withServer { server in
            let url = server.url("/range/40000?seed=12&header=Cache-Control:max-age=600").absoluteString
            let first = await courier("fetch", url, "--cache", cache, "-H", "Range: bytes=0-14999", "-o", dir.appendingPathComponent("head.bin").path)
            #expect(first.status == 0, "\(first.stderr)")
            let continued = dir.appendingPathComponent("continued.bin").path
            let run = await courier("download", url, "--cache", cache, "-o", continued, "-s")
            #expect(run.status == 0, "\(run.stderr)")
            let written = try Data(contentsOf: URL(fileURLWithPath: continued))
            #expect(written == Data(TestServer.bytes(count: 40000, seed: 12)))
            #expect(server.receivedRequests.last?.header("Range") == "bytes=15000-")

            // The file is now stored whole under the URL by a plain fetch: the next download needs no server.
            _ = await courier("fetch", url, "--cache", cache, "-o", dir.appendingPathComponent("whole.bin").path)
            let asked = server.receivedRequests.count
            let stored = dir.appendingPathComponent("stored.bin").path
            let again = await courier("download", url, "--cache", cache, "-o", stored)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("the file is the stored response from --cache"), "\(again.stderr)")
            let copied = try Data(contentsOf: URL(fileURLWithPath: stored))
            #expect(copied == Data(TestServer.bytes(count: 40000, seed: 12)))
            #expect(server.receivedRequests.count == asked)
        }
    }

    @Test func describesProgress() {
        #expect(TransferProgressLine.bytes(512) == "512 B")
        #expect(TransferProgressLine.bytes(1536) == "1.5 KiB")
        #expect(TransferProgressLine.bytes(12 << 20) == "12.0 MiB")
        let line = TransferProgressLine.describe(TransferProgress(completedBytes: 12 << 20, totalBytes: 100 << 20), rate: Double(4 << 20))
        #expect(line == "12.0 MiB of 100.0 MiB (12 %), 4.0 MiB/s, 0:22 left")
        #expect(TransferProgressLine.describe(TransferProgress(completedBytes: 10, totalBytes: nil), rate: nil) == "10 B")
        // A length announced near Int64.max, or a crawling rate, does not trap.
        let absurd = TransferProgressLine.describe(TransferProgress(completedBytes: 0, totalBytes: Int64.max), rate: 1e-300)
        #expect(absurd.hasSuffix("more than 99 hours left"))
        #expect(TransferProgressLine.describe(TransferProgress(completedBytes: 0, totalBytes: Int64.max), rate: 1).hasSuffix("more than 99 hours left"))
    }
}
