import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Disk cache crash safety")
struct CacheCrashTests {
    static let keys = 30

    /// Starts a writer, waits until its store is open, lets it write for a while that depends
    /// on `round`, then kills it with SIGKILL; returns whether the signal ended it. Runs on a
    /// thread of its own, so that waiting for the child blocks no task of the test run.
    static func runAndKillWriter(_ executable: URL, folder: URL, round: Int) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let writer = Process()
                        writer.executableURL = executable
                        writer.arguments = ["--cache", folder.path, "--seed", String(round), "--keys", String(keys)]
                        let output = Pipe()
                        writer.standardOutput = output
                        writer.standardError = FileHandle.nullDevice
                        try ChildProcess.start(writer)
                        // "ready" means the store is open; from then on, each moment is inside
                        // some step of some write. The pause only chooses the moment.
                        _ = try output.fileHandleForReading.read(upToCount: 6)
                        Thread.sleep(forTimeInterval: Double(5 + (round * 53) % 300) / 1000)
                        kill(writer.processIdentifier, SIGKILL)
                        writer.waitUntilExit()
                        return writer.terminationReason == .uncaughtSignal
                    }
                )
            }
        }
    }

    @Test func aWriterKilledAtManyPointsNeverLeavesADamagedEntry() async throws {
        let executable = try builtExecutable(named: "courier-cache-writer")
        try await withCacheFolder { folder in
            var killed = 0
            for round in 0..<20 {
                if try await Self.runAndKillWriter(executable, folder: folder, round: round) { killed += 1 }
            }
            #expect(killed > 0)

            let storage = try DiskCacheStorage(directory: folder, maximumBytes: 2 * 1024 * 1024)
            let onDisk = try await storage.statistics().entryCount
            var intact = 0
            for index in 0..<Self.keys {
                let key = "https://example.test/items/\(index)"
                for entry in try await storage.entries(forKey: key) {
                    #expect(SelfDescribingBody.isIntact(entry.body, key: key, variant: entry.variant), "\(key) \(entry.variant)")
                    intact += 1
                }
            }
            #expect(intact > 0)
            #expect(intact == onDisk, "every entry file left by the killed writers reads back intact")
        }
    }
}
