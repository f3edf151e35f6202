import ArgumentParser
import Courier

#if URLSessionInTool
import CourierURLSession
#endif

/// What `--transport` names: the way `fetch`, `download` and `batch` send their requests.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable {
    /// AsyncHTTPClient, with Courier's own verified connections for hosts with TLS settings of
    /// their own: the default.
    case ahc
    /// URLSession (on Linux, FoundationNetworking over libcurl).
    case urlsession

    /// A client for `configuration` sending this way.
    ///
    /// - Throws: ``CommandFailure`` with status 2 when URLSession cannot apply an option given
    ///   (`--cacert`, `--pin`, `--cert`, `--proxy`, `--tls-min` other than 1.2 on Linux).
    func makeClient(configuration: ClientConfiguration) throws -> CourierClient {
        switch self {
        case .ahc:
            return CourierClient(configuration: configuration)
        case .urlsession:
            #if URLSessionInTool
            do {
                return CourierClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration), ownsTransport: true)
            } catch {
                throw CommandFailure(.invalidInput, "--transport urlsession: \(error.message)")
            }
            #else
            throw CommandFailure(.invalidInput, Self.withoutURLSession)
            #endif
        }
    }

    /// What `--transport urlsession` answers in a courier built without the `URLSessionInTool`
    /// trait, as `scripts/install.sh` builds it.
    static let withoutURLSession =
        "--transport urlsession: this courier was built without URLSession (scripts/install.sh leaves it out, so that the tool starts faster and links without libcurl's development files); build one with `swift build -c release --product courier` to have it"
}
