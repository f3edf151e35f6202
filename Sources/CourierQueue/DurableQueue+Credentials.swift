import Courier
import Foundation
import Logging

extension DurableQueue {
    /// Says credentials may be available now — a user signed in, a token arrived: the records
    /// that wait for credentials are due at once, and ``QueueConfiguration/credentials`` is
    /// asked again.
    public func credentialsChanged() async {
        guard !closed else { return }
        waitingForCredentials.removeAll()
        try? await store.makeDueWaitingForCredentials(now: configuration.now())
        if delivering { await planRound() }
    }

    /// The credential headers `record` needs, from the values this queue holds, the client's
    /// default headers and credentials, then the queue's source; with the source's failure,
    /// if it threw.
    func resolveCredentials(for record: QueueRecord) async -> (resolution: CredentialResolution, sourceFailure: String?) {
        var resolution = CredentialResolution(
            needed: record.request.neededCredentialNames, held: heldCredentials[record.id] ?? Headers(),
            defaults: client.configuration.defaultHeaders,
            clientHasCredentials: client.authenticator?.hasCredentials(for: record.request.url) == true,
            isLegacy: record.request.predatesCredentialNames
        )
        guard !resolution.missing.isEmpty, let source = configuration.credentials else { return (resolution, nil) }
        do {
            resolution.take(try await source.credentials(for: record.request, named: resolution.missing))
        } catch let error as CourierError {
            return (resolution, error.message)
        } catch {
            return (resolution, "\(error)")
        }
        return (resolution, nil)
    }

    /// Releases `record`, which this worker claimed but which lacks the credential headers
    /// `missing`, pending and unsent: its attempt is taken back, the outcome says why, and it is due again after
    /// ``CourierRetryPolicy/maximumDelay`` (or when credentials change, or a queue is opened).
    func waitForCredentials(_ record: QueueRecord, missing: [String], sourceFailure: String?) async throws(CourierError) {
        let now = configuration.now()
        let error = CourierError(
            .missingCredentials, DurableQueue.missingCredentialsMessage(for: record.request, missing: missing, sourceFailure: sourceFailure),
            url: record.request.url
        )
        let outcome = QueueOutcome(status: nil, failure: "\(error.kind): \(error.message)", recordedAt: now, missingCredentials: missing)
        let next = now.addingTimeInterval(configuration.retryPolicy.maximumDelay.timeInterval)
        guard
            let updated = try await store.settle(
                record, holder: worker, state: .pending, outcome: outcome, nextAttemptAt: next, countsAttempt: false
            )
        else { return }
        waitingForCredentials.insert(record.id)
        client.configuration.logger.warning(
            "\(error.message)", metadata: ["courier.queue.record": "\(record.id)", "courier.origin": "\(record.request.origin)"]
        )
        publish(.needsCredentials(updated, missing: missing))
    }

    /// What a record waiting for credentials says, and what to do.
    static func missingCredentialsMessage(for request: QueuedRequest, missing: [String], sourceFailure: String?) -> String {
        var message = "The request needs credentials for \(request.origin) (\(missing.joined(separator: ", "))) that the queue was not given; it waits, unsent."
        if let sourceFailure { message += " The queue's credential source failed: \(sourceFailure)." }
        if missing.contains(where: { $0.lowercased() == "authorization" }) {
            message += " Register QueueConfiguration.credentials, or give the client credentials for this origin (ClientConfiguration.authentication)."
        } else {
            message += " Register QueueConfiguration.credentials to supply them."
        }
        return message
    }
}
