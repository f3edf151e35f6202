/// Makes one refresh per refused token, however many requests were refused with it: the first
/// starts the refresh, the others wait for its result, and requests refused with that token
/// after it ended get the same result without another refresh.
actor TokenRefresher {
    private let provider: any TokenProvider
    /// The refreshes started, by the token they replace; bounded (``remembered``).
    private var refreshes: [String: Refresh] = [:]
    private var order: [String] = []
    private var nextID = 0
    /// How many refused tokens are remembered.
    static let remembered = 16

    private struct Refresh {
        let id: Int
        let task: Task<String?, any Error>
    }

    init(provider: any TokenProvider) {
        self.provider = provider
    }

    /// The token to send now.
    nonisolated func token() async throws -> String {
        try await provider.token()
    }

    /// The token that replaces `rejected`, refreshing it at most once.
    func refreshedToken(replacing rejected: String) async throws -> String? {
        let refresh: Refresh
        if let running = refreshes[rejected] {
            refresh = running
        } else {
            let provider = provider
            nextID += 1
            refresh = Refresh(id: nextID, task: Task { try await provider.refreshedToken(replacing: rejected) })
            refreshes[rejected] = refresh
            order.append(rejected)
            if order.count > TokenRefresher.remembered { refreshes[order.removeFirst()] = nil }
        }
        do {
            return try await refresh.task.value
        } catch {
            // A failed refresh is not remembered: a later request may try again.
            if refreshes[rejected]?.id == refresh.id {
                refreshes[rejected] = nil
                order.removeAll { $0 == rejected }
            }
            throw error
        }
    }
}
