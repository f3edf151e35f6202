import PostgresNIO

/// A prepared statement with its bindings made when it is, whose rows its caller decodes
/// itself: PostgreSQL parses and plans it once on each connection, not on every call.
package protocol RowStatement: PostgresPreparedStatement where Row == PostgresRow {
    var bindings: PostgresBindings { get }
}

extension RowStatement {
    package func makeBindings() throws -> PostgresBindings { bindings }
    package func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
