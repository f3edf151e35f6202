#if COURIER_BENCH_ALAMOFIRE
import Alamofire
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Alamofire, for the small-GET run: a `Session` over the same URLSession settings as the
/// URLSession contender's, each GET read whole with `serializingData()`, as Alamofire's own
/// documentation shows for async code. Built only when the package is given an Alamofire
/// checkout (see Benchmarks/README.md).
///
/// `Session` is thread-safe in every 5.x release; only later ones say so to the compiler.
struct AlamofireSession: @unchecked Sendable {
    private let session: Session

    init(configuration: URLSessionConfiguration) {
        session = Session(configuration: configuration)
    }

    /// The body and status of a GET of `url`.
    func data(from url: URL) async throws -> (Data, Int?) {
        let response = await session.request(url).serializingData().response
        return (try response.result.get(), response.response?.statusCode)
    }
}
#endif
