import Courier

/// A failure that ends the command with a status and one line on stderr.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The failure a library error stands for: its status and a sentence a person reads.
    /// `proxy` is the `--proxy` endpoint (`host:port`) the connection went through, if any;
    /// without it, the proxy the error names (one the environment chose).
    init(_ error: CourierError, proxy: String? = nil) {
        let proxy = proxy ?? error.proxy.map { FailureMessage.endpoint(host: $0.host, port: $0.port) }
        self.init(ExitStatus(error, throughProxy: proxy != nil), FailureMessage(error, proxy: proxy).text)
    }

    /// The failure any error a command ends with stands for: a `CommandFailure` as it is, a
    /// `CourierError` by its kind, a cancellation as an interruption, anything else as an
    /// unexpected failure.
    init(describing error: any Error, proxy: String? = nil) {
        switch error {
        case let failure as CommandFailure: self = failure
        case let error as CourierError: self.init(error, proxy: proxy)
        case is CancellationError: self.init(.interrupted, "interrupted")
        default: self.init(.unexpected, "an unexpected failure: \(PrintableText.escaping(String(describing: error)))")
        }
    }
}
