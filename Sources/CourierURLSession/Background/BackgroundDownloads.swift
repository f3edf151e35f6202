import Foundation

/// The session a ``CourierURLSessionTransport`` carries downloads to files on, so that on Apple
/// platforms they go on while the app is suspended or after the system ended it.
///
/// Every ``Courier/CourierClient/download(_:to:options:)`` through such a transport is a download
/// task of a background `URLSession` named ``identifier``; the client's request path is the
/// same as for any request (credentials, cookies, redirects, retries, resume records), one hop
/// at a time. The system writes the body to a file; the transport moves it into ``folder`` the
/// moment the system hands it over, and the client then writes it to the destination as it
/// would a body from the network.
///
/// When the app was not running as a download finished, its result waits in ``folder``: make
/// the transport again with the same identifier at launch (and, on iOS, call
/// ``CourierURLSessionTransport/finishBackgroundEvents(then:)`` from the app delegate's
/// `handleEventsForBackgroundURLSession`), then download the same request to the same
/// destination again. The client's request is answered from the kept result, without sending
/// it, when its method, URL, credentials, cookies and ranges are the same; otherwise it is sent.
///
/// ```swift
/// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
///     .appendingPathComponent("Downloads in progress")
/// let transport = try CourierURLSessionTransport(
///     configuration: ClientConfiguration(),
///     backgroundDownloads: BackgroundDownloads(identifier: "com.example.app.downloads", folder: folder)
/// )
/// let client = CourierClient(configuration: ClientConfiguration(), transport: transport, ownsTransport: true)
/// ```
///
/// On Linux, FoundationNetworking has no background sessions: downloads go through download
/// tasks of an ordinary session and end with the process; a result that finished unread still
/// answers the next identical download.
public struct BackgroundDownloads: Sendable, Hashable {
    /// The background session's name, the same at every launch; unique within the app and its
    /// extensions. Make one transport per identifier at a time: the system refuses a second
    /// session with the same name in one process.
    public var identifier: String
    /// Where finished bodies wait until the client reads them; made the owner's alone (0700).
    public var folder: URL

    /// Creates the description of a background downloads session.
    public init(identifier: String, folder: URL) {
        self.identifier = identifier
        self.folder = folder
    }
}
