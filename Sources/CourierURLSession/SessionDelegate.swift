import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a ``CourierURLSessionTransport``'s session: passes each task's events to its
/// ``SessionExchange`` and keeps URLSession from acting on its own.
///
/// It follows no redirect (Courier's redirect rules do, one hop at a time), answers no
/// authentication challenge with a stored credential (Courier's authenticators do), and
/// leaves server trust to the platform's default evaluation.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = NIOLockedValueBox([Int: SessionExchange]())

    /// Routes the events of the task numbered `identifier` to `exchange`.
    func register(_ exchange: SessionExchange, for identifier: Int) {
        exchanges.withLockedValue { $0[identifier] = exchange }
    }

    /// Stops routing the events of the task numbered `identifier`.
    func unregister(_ identifier: Int) {
        _ = exchanges.withLockedValue { $0.removeValue(forKey: identifier) }
    }

    private func exchange(for task: URLSessionTask) -> SessionExchange? {
        exchanges.withLockedValue { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The redirect response itself is delivered; the client decides where to go next.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if !canImport(FoundationNetworking)
        guard challenge.protectionSpace.authenticationMethod != NSURLAuthenticationMethodServerTrust else {
            // Server trust is the platform's own evaluation, against the system's roots.
            return completionHandler(.performDefaultHandling, nil)
        }
        #endif
        // An HTTP challenge is the client's to answer (its authenticators send the next
        // request). FoundationNetworking asks once the whole 401 or 407 has been delivered and
        // ends the task as cancelled when the challenge is refused: the exchange knows that
        // such an end is the response's own. (Default handling would wait for ever there.)
        exchange(for: task)?.challenged()
        completionHandler(.rejectProtectionSpace, nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // A streamed body is read once; the client sends the request again if it must.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(for: dataTask) else { return completionHandler(.cancel) }
        guard let response = response as? HTTPURLResponse else {
            exchange.fail(CourierError(.malformedResponse, "The server's answer is not an HTTP response; it cannot be read.", url: exchange.url))
            return completionHandler(.cancel)
        }
        if let failure = CourierURLSessionTransport.refusal(ofStatus: response.statusCode, url: exchange.url) {
            exchange.fail(failure)
            return completionHandler(.cancel)
        }
        exchange.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let exchange = exchange(for: dataTask) else { return }
        switch exchange.receive(data) {
        case .proceed:
            break
        case .pause:
            CourierURLSessionTransport.pause(dataTask)
        case .stop:
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchange(for: task) else { return }
        unregister(task.taskIdentifier)
        if let error = error as? URLError, error.code == .cancelled, exchange.endsWithRefusedChallenge {
            return exchange.sessionCompleted(nil)
        }
        exchange.sessionCompleted(error.map { CourierURLSessionTransport.map($0, url: exchange.url, headArrived: task.response != nil) })
    }
}
