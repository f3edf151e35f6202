import CoreMetrics
import Courier
import CourierQueue
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// The samples of the DocC catalogs, one function each (in `Samples/`, written by
/// scripts/doc-samples.py). They are compiled, never run: their URLs name hosts that do not
/// exist.
enum Samples {}

/// What the samples use without declaring it: the client and configuration an article is
/// about, and the values of the app around them.
struct SampleContext: Sendable {
    var client = CourierClient(configuration: ClientConfiguration())
    var configuration = ClientConfiguration()
    var request = CourierRequest<Data>(path: "/items")
    var form = MultipartForm()
    var upload = CourierRequest<CourierResponse>(method: .post, path: "/videos")
    var savedToken = "token"
    var signIn: @Sendable () async throws -> String = { "token" }
    var fixedDate = Date(timeIntervalSince1970: 1_700_000_000)
    var indicator = Indicator()
    var ids = [1, 2, 3]
    var requestMetrics: any MetricsFactory = NOOPMetricsHandler.instance
    var p12Password = "password"
    var exportFile = URL(fileURLWithPath: "/tmp/export.csv")
    var server: any Service = IdleService()
    var logger = Logger(label: "samples")
    var password = "password"
    var outboxPath = "/tmp/outbox.sqlite"
    var draft = Draft(text: "hello")
    var session = SignedInSession()
    var batch = Batch()
    var memory = MemoryCacheStorage()
    var folder = URL(fileURLWithPath: "/tmp/cache", isDirectory: true)
    var downloads = URL(fileURLWithPath: "/tmp/downloads", isDirectory: true)
    /// An open queue (the samples are compiled, never run).
    var queue: DurableQueue? = nil
    /// The app's PostgreSQL client.
    var postgres = PostgresClient(
        configuration: .init(host: "db.internal", username: "app", password: nil, database: "app", tls: .disable),
        backgroundLogger: Logger(label: "samples")
    )
    var orderID = "order-17"
}

struct User: Codable, Sendable {
    var id = 0
    let name: String
}
struct Profile: Codable, Sendable { let name: String }
struct Session: Codable, Sendable { let token: String }
struct Order: Codable, Sendable { let id: Int }
struct Draft: Codable, Sendable { let text: String }

/// An activity indicator of the app's interface.
final class Indicator: @unchecked Sendable { var isVisible = false }

/// The app's signed-in session.
actor SignedInSession: TokenProvider {
    func currentToken() async throws -> String { "token" }
    func token() async throws -> String { "token" }
    func refreshedToken(replacing rejected: String) async throws -> String? { nil }
}

/// An error of the app's API.
struct APIError: Error { let code: String }

/// Signs the user in again and returns a new token.
func signInAgain() async throws -> String { "token" }

/// Shows a response in the app.
func show(_ response: CourierResponse) {}

/// Another service of the app's service group.
struct IdleService: Service {
    func run() async throws { try await gracefulShutdown() }
}

/// Shows a response body in the app.
func render(_ body: Data, stale: Bool) {}
