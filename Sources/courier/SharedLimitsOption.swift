import Courier
import CourierLimitsPostgres
import Foundation

/// `batch --limits postgres://…`: per-origin limits shared through a PostgreSQL database.
enum SharedLimitsOption {
    /// The budget in the database at `location`, `perHost` requests per origin at once. While the
    /// database cannot be reached, one line on stderr says so and each process keeps to its own
    /// limits; nothing is said while it answers.
    static func budget(_ location: String, perHost: Int) throws(CommandFailure) -> PostgresOriginBudget {
        let lowered = location.lowercased()
        guard lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://"), let url = URL(string: location) else {
            throw CommandFailure(.invalidInput, "--limits \(location) is not a postgres:// URL; give the database the processes share")
        }
        let output = Output.current
        let name = FetchCacheOptions.shown(url, purpose: "limits")
        do {
            return try PostgresOriginBudget(url: url, maximumConcurrentRequestsPerOrigin: perHost) { change in
                guard case .unavailable(let reason) = change else { return }
                output.error("courier: warning: the limits database at \(name) is unavailable (\(reason)); each process keeps to its own limits until it answers")
            }
        } catch {
            throw CommandFailure(.invalidInput, "--limits: \(error.message)")
        }
    }
}
