import Foundation
import NIOConcurrencyHelpers

/// An opt-in cookie jar (RFC 6265): it keeps the cookies responses set and adds a `Cookie`
/// header to every request, each hop of a redirect chain included, with the cookies that
/// request's URL may have.
///
/// ```swift
/// var configuration = ClientConfiguration()
/// configuration.cookies = try CookieJar(file: URL(fileURLWithPath: "cookies.json"))
/// try await CourierClient.withClient(configuration: configuration) { client in
///     _ = try await client.response(for: CourierRequest<CourierResponse>(path: "https://example.com/login"))
/// }
/// try configuration.cookies?.save()
/// ```
///
/// The rules:
/// - A cookie without `Domain` is host-only: sent to the host that set it and no other. With
///   `Domain`, it goes to that domain and its subdomains, provided the host that set it is
///   within the domain and the domain is not a public suffix (``PublicSuffixList/mozilla``):
///   no cookie for `com` or `co.uk`. A `Domain` equal to the host that is a public suffix
///   makes a host-only cookie. An IP address matches only itself.
/// - A cookie goes only to paths at or below its `Path` (by default, the folder of the URL
///   that set it); `Secure` cookies only over https, and only an https response may set one.
/// - `Max-Age` wins over `Expires`; a date in the past deletes the cookie. A cookie with the
///   name, domain and path of one stored replaces it, keeping its creation time.
/// - The `Cookie` header lists longer paths first, then older cookies first.
///
/// The jar can be saved to a file, created with mode 0600 and replaced atomically: Courier's
/// JSON file, which keeps only the cookies with an expiry date, or the Netscape file curl
/// writes, which keeps session cookies too (see ``CookieFileFormat``). Either can be read
/// back with ``addCookies(from:)``. The jar is safe to share between clients and tasks.
public final class CookieJar: Sendable {
    private let state: NIOLockedValueBox<CookieStore>
    private let now: @Sendable () -> Date
    /// The file ``save()`` writes; `nil` for a jar in memory only.
    public let file: URL?
    /// The format ``save()`` writes ``file`` in.
    public let format: CookieFileFormat

    /// An empty jar in memory.
    ///
    /// - Parameters:
    ///   - publicSuffixes: the domains no cookie may be scoped to.
    ///   - now: the current date, for expiry; tests pass a fixed one.
    public init(publicSuffixes: PublicSuffixList = .mozilla, now: @escaping @Sendable () -> Date = { Date() }) {
        self.state = NIOLockedValueBox(CookieStore(publicSuffixes: publicSuffixes))
        self.now = now
        self.file = nil
        self.format = .json
    }

    /// An empty jar that ``save()`` writes to `file` in `format`; the file is not read (add its
    /// cookies with ``addCookies(from:)``).
    public init(
        savingTo file: URL, format: CookieFileFormat, publicSuffixes: PublicSuffixList = .mozilla, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.state = NIOLockedValueBox(CookieStore(publicSuffixes: publicSuffixes))
        self.now = now
        self.file = file
        self.format = format
    }

    /// A jar saved to the JSON file `file`, with the cookies it holds if it exists (expired
    /// ones dropped).
    ///
    /// - Throws: ``CourierError/Kind/cookieStorage`` when the file exists but cannot be read
    ///   or is not a cookie file.
    public init(file: URL, publicSuffixes: PublicSuffixList = .mozilla, now: @escaping @Sendable () -> Date = { Date() }) throws {
        let saved = try CookieFile.load(from: file)
        let date = now()
        self.state = NIOLockedValueBox(CookieStore(publicSuffixes: publicSuffixes, cookies: saved.filter { !$0.isExpired(at: date) }))
        self.now = now
        self.file = file
        self.format = .json
    }

    /// Stores the cookie a `Set-Cookie` field value sets, received from `url`; returns whether
    /// the jar changed (stored, replaced or deleted a cookie).
    @discardableResult
    public func store(setCookie field: String, from url: URL) -> Bool {
        let date = now()
        let decision = state.withLockedValue { $0.receive(field, from: url, now: date) }
        if case .rejected = decision { return false }
        return true
    }

    /// Stores the cookies of every `Set-Cookie` field of `headers`, received from `url`.
    public func store(from headers: Headers, url: URL) {
        let fields = headers.values(for: "Set-Cookie")
        guard !fields.isEmpty else { return }
        let date = now()
        state.withLockedValue { store in
            for field in fields { _ = store.receive(field, from: url, now: date) }
        }
    }

    /// The cookies a request to `url` carries, in `Cookie` header order.
    public func cookies(for url: URL) -> [CourierCookie] {
        let date = now()
        return state.withLockedValue { $0.cookies(for: url, now: date) }
    }

    /// The `Cookie` header value for a request to `url`, or `nil` when no cookie applies.
    public func cookieHeader(for url: URL) -> String? {
        let chosen = cookies(for: url)
        guard !chosen.isEmpty else { return nil }
        return chosen.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every cookie that has not expired, in the order they were first stored.
    public var allCookies: [CourierCookie] {
        let date = now()
        return state.withLockedValue { store in
            store.removeExpired(at: date)
            return store.cookies
        }
    }

    /// Removes the cookies `shouldRemove` picks.
    public func removeAll(where shouldRemove: (CourierCookie) -> Bool) {
        state.withLockedValue { $0.removeAll(where: shouldRemove) }
    }

    /// Removes every cookie.
    public func removeAll() {
        removeAll { _ in true }
    }

    /// Writes the cookies to ``file`` in ``format``: the persistent ones in JSON, all of them
    /// in the Netscape format.
    ///
    /// - Throws: ``CourierError/Kind/cookieStorage`` when the jar has no file or it cannot be
    ///   written.
    public func save() throws {
        guard let file else {
            throw CourierError(.cookieStorage, "The cookie jar has no file to save to; create it with CookieJar(file:) or call save(to:).")
        }
        try save(to: file, format: format)
    }

    /// Writes the persistent cookies to the JSON file `file`, created with mode 0600 and
    /// replaced atomically.
    ///
    /// - Throws: ``CourierError/Kind/cookieStorage`` when the file cannot be written.
    public func save(to file: URL) throws {
        try save(to: file, format: .json)
    }

    /// Writes the cookies to `file` in `format`, created with mode 0600 and replaced
    /// atomically: the persistent ones in JSON, all of them, session cookies included, in the
    /// Netscape format.
    ///
    /// - Throws: ``CourierError/Kind/cookieStorage`` when the file cannot be written.
    public func save(to file: URL, format: CookieFileFormat) throws {
        let cookies = allCookies
        try CookieFile.save(format == .json ? cookies.filter(\.isPersistent) : cookies, to: file, format: format)
    }

    /// Stores cookies that come from elsewhere than a response (a file, another jar), session
    /// cookies included, each replacing the one with its name, domain and path. Expired
    /// cookies, cookies for every host under a public suffix, and cookies their name's
    /// `__Secure-` or `__Host-` prefix forbids are left out.
    public func add(_ cookies: [CourierCookie]) {
        let date = now()
        state.withLockedValue { store in
            for cookie in cookies { _ = store.insert(cookie, now: date) }
        }
    }

    /// Adds the cookies of `file` (see ``add(_:)``), a JSON or Netscape file, told apart by
    /// their contents; a file that does not exist adds none. In a Netscape file, a line that
    /// is not a cookie is skipped.
    ///
    /// - Throws: ``CourierError/Kind/cookieStorage`` when the file cannot be read, is not a
    ///   regular file, is larger than 4 MiB, or is JSON but not a cookie file.
    public func addCookies(from file: URL) throws {
        add(try CookieFile.loadAnyFormat(from: file, now: now()))
    }

    /// Adds the jar's cookies for the request's URL to its `Cookie` header (after any the
    /// request set itself).
    func addCookies(to request: inout CourierHTTPRequest) {
        guard let header = cookieHeader(for: request.url) else { return }
        if let own = request.headers["Cookie"], !own.isEmpty {
            request.headers.set(name: "Cookie", value: own + "; " + header)
        } else {
            request.headers.set(name: "Cookie", value: header)
        }
    }
}
