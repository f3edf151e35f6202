import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession driven through a data delegate: each response arrives as delegate calls (its
/// head, its body in pieces, its end) on the session's delegate queue. That is how a wrapper
/// that streams bodies, stops one at a size limit or decides redirects itself must drive
/// URLSession, where `data(from:)` collects the body and follows redirects on its own.
final class DelegateSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>
        var body = Data()
        var response: URLResponse?
    }

    private let pending = NIOLockedValueBox<[Int: Pending]>([:])
    private var session: URLSession?

    /// A session with the same settings as the plain URLSession contender's.
    init(configuration: URLSessionConfiguration) {
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// The body and head of a GET of `url`.
    func data(from url: URL) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            guard let task = session?.dataTask(with: url) else {
                continuation.resume(throwing: URLError(.cancelled))
                return
            }
            pending.withLockedValue { $0[task.taskIdentifier] = Pending(continuation: continuation) }
            task.resume()
        }
    }

    /// Lets the tasks in flight finish, then releases the session (which holds its delegate).
    func finish() {
        session?.finishTasksAndInvalidate()
        session = nil
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        pending.withLockedValue { $0[dataTask.taskIdentifier]?.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLockedValue { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let done = pending.withLockedValue({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            done.continuation.resume(throwing: error)
        } else if let response = done.response {
            done.continuation.resume(returning: (done.body, response))
        } else {
            done.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
