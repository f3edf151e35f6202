import Courier
import Foundation

/// Which of a record's credential headers delivery has, and which it still lacks.
///
/// A pure value, so that the order of the places credentials come from is tested without a
/// queue: the values the enqueuing queue still holds, then the delivering client's default
/// headers, then — for `Authorization` only — the client's own credentials for the origin,
/// then the queue's ``QueueCredentialSource`` for whatever is left.
struct CredentialResolution: Equatable {
    /// The fields to add to the request before it is sent.
    private(set) var supplied = Headers()
    /// The names still lacking, as the record lists them.
    private(set) var missing: [String]
    /// Whether the client may add its own credentials for the origin (and answer its
    /// challenges): only for a request that needs an `Authorization`, or one written before
    /// the queue kept credential names, which was always sent that way.
    let usesClientCredentials: Bool

    /// - Parameters:
    ///   - needed: the credential headers the record needs (``QueuedRequest/neededCredentialNames``).
    ///   - held: the values the queue that enqueued the record still holds.
    ///   - defaults: the delivering client's ``ClientConfiguration/defaultHeaders``.
    ///   - clientHasCredentials: whether the delivering client has credentials for the origin.
    ///   - isLegacy: whether the record predates credential names.
    init(needed: [String], held: Headers, defaults: Headers, clientHasCredentials: Bool, isLegacy: Bool = false) {
        missing = needed
        let needsAuthorization = needed.contains { $0.lowercased() == "authorization" }
        usesClientCredentials = needsAuthorization || isLegacy
        take(held)
        take(defaults)
        if clientHasCredentials { missing.removeAll { $0.lowercased() == "authorization" } }
    }

    /// Adds the fields of `fields` whose names are still missing; ignores the others.
    mutating func take(_ fields: Headers) {
        let wanted = Set(missing.map { $0.lowercased() })
        var found = Set<String>()
        for field in fields where wanted.contains(field.name.lowercased()) {
            supplied.add(name: field.name, value: field.value)
            found.insert(field.name.lowercased())
        }
        missing.removeAll { found.contains($0.lowercased()) }
    }
}
