import Foundation
import Logging

extension CourierClient {
    /// Adds the cookie jar's cookies for the hop's URL, then tells the observers and the
    /// logger (at trace level, secrets redacted) that the hop is about to be sent.
    func prepareHop(_ request: inout CourierHTTPRequest) {
        configuration.cookies?.addCookies(to: &request)
        // The event is made only for someone to tell: most clients have no observer and do
        // not log at trace level.
        let logger = configuration.logger
        let logs = logger.logLevel <= .trace
        guard !observers.isEmpty || logs else { return }
        let event = ExchangeEvent(request: request)
        for observer in observers { observer.exchangeWillSend(event) }
        guard logs else { return }
        logger.trace(
            "sending",
            metadata: [
                "courier.request": "\(request.id)",
                "courier.method": "\(request.method)",
                "courier.url": "\(request.url.absoluteString)",
                "courier.headers": "\(event.redactedRequestHeaders.pairs)",
            ])
    }

    /// Stores the cookies a hop's response sets, then tells the observers and the logger.
    func finishHop(_ request: CourierHTTPRequest, head: CourierResponse) {
        let (status, headers) = (head.status, head.headers)
        configuration.cookies?.store(from: headers, url: request.url)
        configuration.originBudget?.record(status: status, headers: headers, from: request.origin)
        let logger = configuration.logger
        let logs = logger.logLevel <= .trace
        guard !observers.isEmpty || logs else { return }
        let event = ExchangeEvent(
            request: request, status: status, reasonPhrase: head.reasonPhrase, responseHeaders: headers, protocolVersion: head.protocolVersion
        )
        for observer in observers { observer.exchangeDidReceive(event) }
        guard logs else { return }
        logger.trace(
            "received",
            metadata: [
                "courier.request": "\(request.id)",
                "courier.status": "\(status)",
                "courier.headers": "\(event.redactedResponseHeaders.pairs)",
            ])
    }
}
