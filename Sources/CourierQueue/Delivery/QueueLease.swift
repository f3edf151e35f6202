import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A worker's hold on a record it is sending: no other worker claims the record until
/// ``expiresAt`` has passed. The holder renews it while the attempt runs, so a lease ends only
/// when its worker died, hung or lost its database; another worker then sends the record
/// again, with its `Idempotency-Key`.
public struct QueueLease: Sendable, Hashable {
    /// The worker that holds the record: its host name, process id and a random suffix
    /// (`host/pid/suffix`).
    public var holder: String
    /// When the lease ends unless it is renewed.
    public var expiresAt: Date

    /// Creates a lease.
    public init(holder: String, expiresAt: Date) {
        self.holder = holder
        self.expiresAt = expiresAt
    }
}

/// Who a worker is, and whether the holder of a lease is known to be gone.
enum QueueWorker {
    /// A new worker identity: this host, this process, and a random suffix so that two queues
    /// in one process are two workers.
    static func makeIdentity() -> String {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        return "\(hostName)/\(getpid())/\(suffix)"
    }

    /// Whether `holder` names a process of this host that no longer runs. A holder on another
    /// host, or one that cannot be read, is never judged gone: its lease is waited out.
    static func isGone(_ holder: String) -> Bool {
        let parts = holder.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == hostName[...], let pid = pid_t(parts[1]), pid > 0 else { return false }
        if pid == getpid() { return false }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Whether `holder` is a worker of this host, whose death ``isGone(_:)`` notices.
    static func isLocal(_ holder: String) -> Bool {
        holder.split(separator: "/", omittingEmptySubsequences: false).first == hostName[...]
    }

    /// This host's name, without slashes.
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name.replacingOccurrences(of: "/", with: "_")
    }()
}
