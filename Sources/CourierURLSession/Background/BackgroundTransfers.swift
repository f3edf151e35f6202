import Foundation

/// The session a ``CourierURLSessionTransport`` carries downloads to files and uploads of files
/// on, so that on Apple platforms they go on while the app is suspended or after the system
/// ended it.
///
/// Every ``Courier/CourierClient/download(_:to:options:)`` through such a transport is a download
/// task of a background `URLSession` named ``identifier``, and every request whose body is a
/// file (``Courier/CourierRequestBody/file(_:contentType:)``) is an upload task that sends the
/// file itself. The client's request path is the same as for any request (credentials,
/// cookies, redirects, retries, resume records), one hop at a time. The system writes a
/// download's body to a file; the transport moves it into ``folder`` the moment the system
/// hands it over, and the client then writes it to the destination as it would a body from the
/// network.
///
/// When the app was not running as a transfer finished, its result waits in ``folder``: make
/// the transport again with the same identifier at launch (and, on iOS, call
/// ``CourierURLSessionTransport/finishBackgroundEvents(then:)`` from the app delegate's
/// `handleEventsForBackgroundURLSession`), then send the same request again. It is answered
/// from the kept result, without being sent, when its method, URL, credentials, cookies,
/// ranges, content type and `Idempotency-Key` are the same, and for an upload the file's path,
/// size and modification time too; otherwise it is sent.
///
/// ```swift
/// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
///     .appendingPathComponent("Transfers in progress")
/// let transport = try CourierURLSessionTransport(
///     configuration: ClientConfiguration(),
///     backgroundTransfers: BackgroundTransfers(identifier: "com.example.app.transfers", folder: folder)
/// )
/// let client = CourierClient(configuration: ClientConfiguration(), transport: transport, ownsTransport: true)
/// ```
///
/// On Linux, FoundationNetworking has no background sessions: transfers go through data and
/// upload tasks of an ordinary session and end with the process; a download's body is written
/// straight into the folder, and a result that finished unread still answers the next
/// identical request.
public struct BackgroundTransfers: Sendable, Hashable {
    /// The background session's name, the same at every launch; unique within the app and its
    /// extensions. Make one transport per identifier at a time: the system refuses a second
    /// session with the same name in one process.
    public var identifier: String
    /// Where finished downloads and the answers to uploads wait until the client reads them;
    /// made the owner's alone (0700).
    public var folder: URL

    /// Creates the description of a background transfers session.
    public init(identifier: String, folder: URL) {
        self.identifier = identifier
        self.folder = folder
    }
}
