import Courier
import CourierPostgres
import CourierQueue
import Foundation

extension QueueStorage {
    /// The PostgreSQL database at `url` (`postgres://user:password@host:5432/database`, with
    /// `?sslmode=disable`, `prefer` (the default) or `require`, and `connect_timeout=SECONDS`,
    /// which bounds opening: 15 seconds unless set). The queue creates its tables
    /// (`courier_queue`, `courier_queue_schema`) and migrates them; workers on any number of
    /// hosts may deliver one database.
    ///
    /// ```swift
    /// let configuration = QueueConfiguration(storage: .postgres(URL(string: "postgres://app@db.internal/app")!))
    /// let queue = try await client.openQueue(configuration)
    /// ```
    ///
    /// Opening throws ``CourierError/Kind/invalidConfiguration`` for a URL that is not a
    /// `postgres://` URL or sets another parameter, and ``CourierError/Kind/queueStorage`` when
    /// the server cannot be reached and the tables made ready within `connect_timeout`, or the
    /// server refuses the login.
    public static func postgres(_ url: URL) -> QueueStorage {
        let shown = (try? PostgresLocation(url, purpose: "queue").redacted) ?? PostgresLocation.withoutPassword(url)
        return QueueStorage(description: shown) { logger throws(CourierError) in
            try await PostgresQueueStore.open(try PostgresLocation(url, purpose: "queue"), logger: logger)
        }
    }
}
