import Foundation
import Logging
import NIOCore
import PostgresNIO

/// How a body is best kept in PostgreSQL: in rows of 512 KiB (what `PostgresCacheStorage`
/// does), or in a large object written and read in the same pieces (`lo_from_bytea`, `lo_put`,
/// `lo_get`). Both are timed with raw PostgresNIO statements on a throwaway server, a 16 MiB
/// body written in one transaction and read back, so that only the layout differs.
struct CacheLayoutBenchmark {
    let rounds: Int

    static let bodyBytes = 16 << 20
    static let pieceBytes = 512 * 1024

    func run() async throws {
        let cluster = try PostgresCluster.start()
        defer { cluster.stop() }
        try cluster.createDatabase("layout")
        var configuration = PostgresClient.Configuration(
            host: cluster.host, port: cluster.port, username: cluster.username, password: nil, database: "layout", tls: .disable
        )
        configuration.options.maximumConnections = 2
        let client = PostgresClient(configuration: configuration)
        let pool = Task { await client.run() }
        defer { pool.cancel() }
        let logger = Logger(label: "courier-bench")
        _ = try await client.query(
            "CREATE TABLE chunks (id bigint NOT NULL, position integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (id, position))", logger: logger
        ).collect()
        _ = try await client.query("ALTER TABLE chunks ALTER COLUMN bytes SET STORAGE EXTERNAL", logger: logger).collect()
        let body = ByteBuffer(bytes: (0..<Self.bodyBytes).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        var times: [String: [(write: Double, read: Double)]] = [:]
        for round in 0...rounds {
            let rows = try await timed { try await rowsRoundTrip(body, id: Int64(round), client: client, logger: logger) }
            let object = try await timed { try await largeObjectRoundTrip(body, client: client, logger: logger) }
            if round > 0 {
                times["rows of 512 KiB (bytea, kept out of line uncompressed)", default: []].append(rows)
                times["a large object, written and read in 512 KiB pieces", default: []].append(object)
            }
        }
        print("\nA \(Self.bodyBytes >> 20) MiB body in PostgreSQL, written in one transaction and read back, raw PostgresNIO, median of \(rounds) rounds:")
        print("| layout | write ms | read ms |")
        print("|---|---|---|")
        for (name, samples) in times.sorted(by: { $0.key > $1.key }) {
            print("| \(name) | \(String(format: "%.1f", median(samples.map(\.write)))) | \(String(format: "%.1f", median(samples.map(\.read)))) |")
        }
    }

    /// The milliseconds the write and the read of `work` took.
    private func timed(_ work: () async throws -> (ContinuousClock.Instant, ContinuousClock.Instant)) async throws -> (write: Double, read: Double) {
        let start = ContinuousClock.now
        let (written, read) = try await work()
        func milliseconds(_ duration: Duration) -> Double { Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000 }
        return (milliseconds(written - start), milliseconds(read - written))
    }

    private func rowsRoundTrip(_ body: ByteBuffer, id: Int64, client: PostgresClient, logger: Logger) async throws -> (ContinuousClock.Instant, ContinuousClock.Instant) {
        try await client.withTransaction(logger: logger) { connection in
            var position: Int32 = 0
            var rest = body
            while let piece = rest.readSlice(length: min(Self.pieceBytes, rest.readableBytes)), piece.readableBytes > 0 {
                _ = try await connection.query("INSERT INTO chunks (id, position, bytes) VALUES (\(id), \(position), \(piece))", logger: logger).collect()
                position += 1
            }
        }
        let written = ContinuousClock.now
        var total = 0
        for try await row in try await client.query("SELECT bytes FROM chunks WHERE id = \(id) ORDER BY position", logger: logger) {
            total += try row.decode(ByteBuffer.self).readableBytes
        }
        guard total == body.readableBytes else { throw HarnessError("rows gave back \(total) bytes") }
        return (written, ContinuousClock.now)
    }

    private func largeObjectRoundTrip(_ body: ByteBuffer, client: PostgresClient, logger: Logger) async throws -> (ContinuousClock.Instant, ContinuousClock.Instant) {
        let oid: Int64 = try await client.withTransaction(logger: logger) { connection in
            var rest = body
            let first = rest.readSlice(length: min(Self.pieceBytes, rest.readableBytes)) ?? ByteBuffer()
            let oid = try await connection.query("SELECT lo_from_bytea(0, \(first))::bigint", logger: logger).collect().first?.decode(Int64.self) ?? 0
            var offset = Int64(first.readableBytes)
            while let piece = rest.readSlice(length: min(Self.pieceBytes, rest.readableBytes)), piece.readableBytes > 0 {
                _ = try await connection.query("SELECT lo_put(\(oid)::oid, \(offset), \(piece))", logger: logger).collect()
                offset += Int64(piece.readableBytes)
            }
            return oid
        }
        let written = ContinuousClock.now
        var total = 0
        while total < body.readableBytes {
            let rows = try await client.query("SELECT lo_get(\(oid)::oid, \(Int64(total)), \(Int32(Self.pieceBytes)))", logger: logger).collect()
            guard let piece = try rows.first?.decode(ByteBuffer.self), piece.readableBytes > 0 else { break }
            total += piece.readableBytes
        }
        guard total == body.readableBytes else { throw HarnessError("the large object gave back \(total) bytes") }
        let read = ContinuousClock.now
        _ = try await client.query("SELECT lo_unlink(\(oid)::oid)", logger: logger).collect()
        return (written, read)
    }
}
