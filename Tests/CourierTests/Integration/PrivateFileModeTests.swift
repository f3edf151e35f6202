import Courier
import CourierQueue
import CourierTesting
import Foundation
import InMemoryLogging
import Logging
import Testing

/// The queue's and the disk cache's files are for their owner alone, whatever the umask, and
/// a folder that lets other users in is reported. Serialized: the umask belongs to the process.
@Suite("Private queue and cache files", .serialized)
struct PrivateFileModeTests {
    @Test func theQueueFolderDatabaseAndLogAreOwnerOnlyEvenWithAnEmptyUmask() async throws {
        try await withTemporaryFolder { base in
            let folder = base.appendingPathComponent("outbox").path
            let path = folder + "/queue.sqlite"
            try await withUmask(0) {
                try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { queue in
                    _ = try await queue.enqueue(QueuedRequest(method: .post, url: URL(string: "http://127.0.0.1:9/idempotent")!))
                    #expect(queue.permissionWarnings.isEmpty)
                    #expect(modeBits(folder) == 0o700)
                    #expect(modeBits(path) == 0o600)
                    // SQLite gives its write-ahead log and shared-memory files the database's mode.
                    #expect(modeBits(path + "-wal") == 0o600)
                    #expect(modeBits(path + "-shm") == 0o600)
                }
            }
        }
    }

    @Test func aSharedQueueFolderIsReportedAndLeftAsItIs() async throws {
        try await withTemporaryFolder { base in
            let folder = base.appendingPathComponent("shared").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            var logging = InMemoryLogHandler()
            logging.logLevel = .warning
            var client = ClientConfiguration()
            client.logger = Logger(label: "test", factory: { [logging] _ in logging })
            let warnings = try await withQueue(path: folder + "/queue.sqlite", client: client) { $0.permissionWarnings }
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains(folder) == true)
            #expect(warnings.first?.contains("0755") == true)
            #expect(warnings.first?.contains("chmod 700") == true)
            #expect(modeBits(folder) == 0o755, "Courier does not change a folder it did not create")
            #expect(logging.entries.filter { $0.level == .warning }.map(\.message.description) == warnings)
        }
    }

    @Test func aQueueDatabaseOpenToOthersIsMadePrivateAndReported() async throws {
        try await withQueueFolder { path in
            try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { _ in }
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let warnings = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { $0.permissionWarnings }
            #expect(modeBits(path) == 0o600)
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("\(path) (mode 0644)") == true)
            let again = try await withQueue(path: path, configure: { $0.deliversOnOpen = false }) { $0.permissionWarnings }
            #expect(again.isEmpty)
        }
    }

    @Test func cacheEntriesAndFoldersAreOwnerOnlyEvenWithAnEmptyUmask() async throws {
        try await withTemporaryFolder { base in
            let folder = base.appendingPathComponent("cache")
            try await withUmask(0) {
                let storage = try DiskCacheStorage(directory: folder)
                #expect(storage.permissionWarnings.isEmpty)
                try await storage.store(sampleEntry(key: "https://example.test/a", variant: "v"))
                let file = entryFile(in: folder, key: "https://example.test/a", variant: "v")
                for path in [file.path, folder.appendingPathComponent("lock").path, folder.appendingPathComponent("ledger").path] {
                    #expect(modeBits(path) == 0o600, "\(path)")
                }
                for directory in [folder, folder.appendingPathComponent("entries"), file.deletingLastPathComponent()] {
                    #expect(modeBits(directory.path) == 0o700, "\(directory.path)")
                }
            }
        }
    }

    @Test func aSharedCacheFolderIsReportedThroughTheClientsLogger() async throws {
        try await withTemporaryFolder { folder in
            try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: folder.path)
            let disk = try DiskCacheStorage(directory: folder)
            #expect(disk.permissionWarnings.count == 1)
            #expect(disk.permissionWarnings.first?.contains("\(folder.path), which holds a disk cache") == true)
            #expect(disk.permissionWarnings.first?.contains("0750") == true)
            #expect(modeBits(folder.path) == 0o750)
            var logging = InMemoryLogHandler()
            logging.logLevel = .warning
            var configuration = ClientConfiguration()
            configuration.logger = Logger(label: "test", factory: { [logging] _ in logging })
            configuration.cache = CacheConfiguration(storage: TieredCacheStorage(front: MemoryCacheStorage(), back: disk))
            let client = CourierClient(configuration: configuration)
            try await client.shutdown()
            #expect(logging.entries.map(\.message.description) == disk.permissionWarnings)
        }
    }
}
