import Courier
import Logging

/// Where a ``DurableQueue`` keeps its records: an SQLite file, the default, or a PostgreSQL
/// database through the CourierQueuePostgres product (`QueueStorage.postgres(_:)`), which
/// workers on many hosts share.
///
/// ```swift
/// var configuration = QueueConfiguration()
/// configuration.storage = .sqlite(path: "/var/lib/app/outbox.sqlite")
/// ```
public struct QueueStorage: Sendable, CustomStringConvertible {
    /// Where the records are: the file's path, or the database's URL without its password.
    public let description: String
    /// The SQLite file's path; `nil` for other storage.
    public let sqlitePath: String?
    /// Opens the storage; the logger is the client's.
    let open: @Sendable (Logger) async throws(CourierError) -> any QueueBackend

    /// Storage that `open` opens; for the storage products of this package.
    package init(description: String, open: @escaping @Sendable (Logger) async throws(CourierError) -> any QueueBackend) {
        self.description = description
        self.sqlitePath = nil
        self.open = open
    }

    private init(sqlitePath: String) {
        self.description = sqlitePath
        self.sqlitePath = sqlitePath
        self.open = { logger throws(CourierError) in try await SQLiteQueueStore.open(path: sqlitePath, logger: logger) }
    }

    /// The SQLite database at `path`; the file and its folder are created, private (0600 and
    /// 0700), when missing. Several processes on one machine may deliver one file.
    public static func sqlite(path: String) -> QueueStorage {
        QueueStorage(sqlitePath: path)
    }
}
