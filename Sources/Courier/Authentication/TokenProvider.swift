/// Supplies bearer tokens, and new ones when the server refuses the current one.
///
/// Courier asks for ``token()`` before each request to a protected origin and sends it as
/// `Authorization: Bearer …`. When the server answers 401, Courier calls
/// ``refreshedToken(replacing:)`` once for that token, however many requests were refused
/// with it at the same time, and sends each of them once more with the new token.
///
/// ```swift
/// actor Session: TokenProvider {
///     private var current = "initial-token"
///     func token() async throws -> String { current }
///     func refreshedToken(replacing rejected: String) async throws -> String? {
///         current = try await signInAgain()
///         return current
///     }
/// }
/// ```
public protocol TokenProvider: Sendable {
    /// The token to send now. Called once per request; make it cheap.
    func token() async throws -> String

    /// Returns a token to use instead of `rejected`, which the server refused, or `nil` when
    /// there is none (the request then fails with ``CourierError/Kind/authenticationFailed``).
    /// Courier calls it once per refused token, never concurrently for the same token; an
    /// error you throw reaches every request that waited for the refresh.
    func refreshedToken(replacing rejected: String) async throws -> String?
}

/// A token that never changes (`courier fetch --bearer`): it cannot be refreshed.
struct FixedToken: TokenProvider {
    let value: String
    func token() async throws -> String { value }
    func refreshedToken(replacing rejected: String) async throws -> String? { nil }
}
