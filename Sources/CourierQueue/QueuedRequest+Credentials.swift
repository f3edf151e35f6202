import Courier
import Foundation

extension QueuedRequest {
    /// Whether the request needs credentials at delivery: it had credential headers taken out
    /// (``credentialHeaderNames``), or its client had credentials for its origin
    /// (``hadClientCredentials``).
    public var needsCredentials: Bool { !credentialHeaderNames.isEmpty || hadClientCredentials }

    /// The credential headers delivery must supply: ``credentialHeaderNames``, and
    /// `Authorization` when the enqueuing client had credentials for the origin.
    var neededCredentialNames: [String] {
        var names = credentialHeaderNames
        if hadClientCredentials { QueuedRequest.append("Authorization", to: &names) }
        return names
    }

    /// Takes the credential headers out of ``headers`` — `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, and the lower-cased names in `sensitive` — and adds
    /// their names to ``credentialHeaderNames``; returns the fields taken out. The
    /// `Idempotency-Key` stays, whatever `sensitive` says: it is kept with the record anyway.
    mutating func removeCredentials(sensitive: Set<String>) -> Headers {
        var removed = Headers()
        for field in headers {
            let name = field.name.lowercased()
            guard name != QueuedRequest.idempotencyKeyHeader.lowercased(),
                CourierHTTPRequest.credentialHeaders.contains(name) || sensitive.contains(name)
            else { continue }
            removed.add(name: field.name, value: field.value)
        }
        for field in removed {
            headers.remove(name: field.name)
            QueuedRequest.append(field.name, to: &credentialHeaderNames)
        }
        return removed
    }

    /// Appends `name` to `names` unless it is there already, in any case.
    static func append(_ name: String, to names: inout [String]) {
        if !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
    }
}
