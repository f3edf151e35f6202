import ArgumentParser
import Courier
import CourierURLSession

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
            do {
                return CourierClient(configuration: configuration, transport: try CourierURLSessionTransport(configuration: configuration), ownsTransport: true)
            } catch {
                throw CommandFailure(.invalidInput, "--transport urlsession: \(error.message)")
            }
        }
    }
}
