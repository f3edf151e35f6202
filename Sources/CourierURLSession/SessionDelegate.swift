import Courier
import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The delegate of a ``CourierURLSessionTransport``'s session: passes each task's events to its
/// ``SessionExchange`` (a data task, or an upload task of the background transfers session) or
/// ``DownloadTaskExchange`` (a download of the background transfers session, whose body it
/// moves, or on Linux writes, into the ``TransferLedger`` first), keeps the answers to uploads
/// nobody waits for (``UnclaimedResponses``), and keeps URLSession from acting on its own.
///
/// It follows no redirect (Courier's redirect rules do, one hop at a time), answers no
/// authentication challenge with a stored credential (Courier's authenticators do), and
/// leaves server trust to the platform's default evaluation.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    /// The data tasks waited for.
    let exchanges = TaskRegistry<SessionExchange>()
    /// The downloads waited for, on a background transfers session: download tasks, or data
    /// tasks on Linux.
    let downloads = TaskRegistry<DownloadTaskExchange>()
    /// Where a background transfers session keeps finished bodies; `nil` on a data session.
    let ledger: TransferLedger?
    /// The answers to uploads of a background transfers session that nobody waits for.
    let unclaimed: UnclaimedResponses?
    #if canImport(Darwin)
    /// What the app gave to be called once the system has delivered a background session's
    /// events (see ``CourierURLSessionTransport/finishBackgroundEvents(then:)``).
    let backgroundEventsHandler = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
    #endif

    init(ledger: TransferLedger? = nil) {
        self.ledger = ledger
        self.unclaimed = ledger.map(UnclaimedResponses.init(ledger:))
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
        exchanges[task]?.challenged()
        downloads[task]?.challenged()
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
        if let download = downloads[dataTask] {
            download.received(response as? HTTPURLResponse)
            return completionHandler(download.isDone ? .cancel : .allow)
        }
        guard let exchange = exchanges[dataTask] else {
            // An upload sent while the app was not running: its answer is kept.
            return completionHandler(unclaimed?.accepts(dataTask) == true ? .allow : .cancel)
        }
        completionHandler(Self.deliver(response, to: exchange) ? .allow : .cancel)
    }

    /// Hands `response` to `exchange`; returns `false` when it cannot be read, which ends the
    /// exchange.
    private static func deliver(_ response: URLResponse, to exchange: SessionExchange) -> Bool {
        guard let response = response as? HTTPURLResponse else {
            exchange.fail(CourierError(.malformedResponse, "The server's answer is not an HTTP response; it cannot be read.", url: exchange.url))
            return false
        }
        if let failure = CourierURLSessionTransport.refusal(ofStatus: response.statusCode, url: exchange.url) {
            exchange.fail(failure)
            return false
        }
        exchange.receive(response)
        return true
    }

    /// Hands an upload task's head to its exchange if the session has not: a background
    /// session need not report the response of an upload task before its body.
    private func deliverHeadOfUpload(_ task: URLSessionTask, to exchange: SessionExchange) -> Bool {
        guard ledger != nil, !exchange.hasHead, let response = task.response else { return true }
        return Self.deliver(response, to: exchange)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        // Only the running total is used: FoundationNetworking's per-call counts do not add up to it.
        exchanges[task]?.reportSent?(totalBytesSent)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if let download = downloads[dataTask] {
            if !download.append(data) { dataTask.cancel() }
            return
        }
        guard let exchange = exchanges[dataTask] else {
            if let unclaimed, !unclaimed.append(data, of: dataTask) { dataTask.cancel() }
            return
        }
        guard deliverHeadOfUpload(dataTask, to: exchange) else { return dataTask.cancel() }
        switch exchange.receive(data) {
        case .proceed:
            break
        case .pause:
            CourierURLSessionTransport.pause(dataTask)
        case .stop:
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        guard let download = downloads[downloadTask] else { return }
        let response = downloadTask.response as? HTTPURLResponse
        // Only the body of a success is the download's: a redirect's or a challenge's is not.
        if let response, !(200..<300).contains(response.statusCode) { return }
        // FoundationNetworking tells the response only at the end, so whose body this is stays
        // unknown until then, and the count goes without a length.
        let expected = response != nil && totalBytesExpectedToWrite >= 0 ? totalBytesExpectedToWrite : nil
        download.reportReceived?(totalBytesWritten, expected)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // The file is deleted when this returns: it is moved into the ledger now, whether or not
        // anyone still waits for it (after a relaunch, nobody does). A download that still
        // waits has its result claimed for it alone; one that nobody waits for is left open to
        // the next identical download.
        guard let ledger, let name = downloadTask.taskDescription, let response = downloadTask.response as? HTTPURLResponse else { return }
        let download = downloads[downloadTask]
        if download?.isDone == true { return }
        download?.finished(ledger.keep(location, response: response, name: name, isClaimed: download != nil))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let download = downloads[task] {
            downloads.unregister(task.taskIdentifier)
            let name = task.taskDescription
            let cancelled = (error as? URLError)?.code == .cancelled
            // A data task's body is in the part file (see `DownloadTaskExchange`).
            let part = task is URLSessionDownloadTask ? nil : download.closePart()
            let body = part?.file
            if let ledger, let name, let response = task.response as? HTTPURLResponse, !download.isDone {
                if part != nil, error == nil {
                    download.finished(part?.isDropped == true ? nil : ledger.keep(body, response: response, name: name, isClaimed: true))
                } else if cancelled, download.endsWithRefusedChallenge {
                    // The challenge is the client's to answer, from the head: the 401 or 407 is
                    // delivered with the body that arrived before it was refused.
                    download.finished(ledger.keep(body, response: response, name: name, isClaimed: true))
                }
            }
            let delivered = download.completed(
                error.map { CourierURLSessionTransport.map($0, url: download.url, headArrived: task.response != nil) },
                cancelledAfterChallenge: cancelled
            )
            // Nobody reads what was not delivered (a failure, a cancellation, a deadline past):
            // nothing of it is kept.
            if !delivered, let name { ledger?.remove(name) }
            return
        }
        guard let exchange = exchanges[task] else {
            unclaimed?.complete(task, error: error)
            return
        }
        exchanges.unregister(task.taskIdentifier)
        if error == nil { _ = deliverHeadOfUpload(task, to: exchange) }
        if let error = error as? URLError, error.code == .cancelled, exchange.endsWithRefusedChallenge {
            return exchange.sessionCompleted(nil)
        }
        exchange.sessionCompleted(error.map { CourierURLSessionTransport.map($0, url: exchange.url, headArrived: task.response != nil) })
    }

    #if canImport(Darwin)
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let handler = backgroundEventsHandler.withLockedValue { handler in
            defer { handler = nil }
            return handler
        }
        // The system expects the handler on the main thread.
        if let handler { DispatchQueue.main.async { handler() } }
    }
    #endif
}

/// The exchanges of a session's tasks, by task identifier: the session's delegate looks each
/// event's exchange up here.
struct TaskRegistry<Exchange: Sendable>: Sendable {
    private let byTask = NIOLockedValueBox([Int: Exchange]())

    /// Routes the events of the task numbered `identifier` to `exchange`.
    func register(_ exchange: Exchange, for identifier: Int) {
        byTask.withLockedValue { $0[identifier] = exchange }
    }

    /// Stops routing the events of the task numbered `identifier`.
    func unregister(_ identifier: Int) {
        _ = byTask.withLockedValue { $0.removeValue(forKey: identifier) }
    }

    /// The exchange of `task`, while it is registered.
    subscript(task: URLSessionTask) -> Exchange? {
        byTask.withLockedValue { $0[task.taskIdentifier] }
    }
}
