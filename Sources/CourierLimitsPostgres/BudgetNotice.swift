import Courier
import Foundation
import RawStructuredFieldValues

/// What one response head says about its origin's budget: how long to leave the origin alone
/// (`Retry-After` on a `429` or `503`), or how much of its quota is left and when it is renewed
/// (the `RateLimit` and `RateLimit-Policy` fields of draft-ietf-httpapi-ratelimit-headers).
struct BudgetNotice: Hashable, Sendable {
    /// How long no request may start.
    var pause: Duration?
    /// Requests left in the current window.
    var remaining: Int64?
    /// Seconds until the window is renewed.
    var reset: Double?
    /// The requests a window allows, when the policy says.
    var quota: Int64?
    /// The window's length in seconds, when the policy says.
    var window: Double?

    /// The longest pause or reset taken from a server: a day. Longer values are cut to it.
    static let longest: Double = 86_400

    /// What `headers` of a response with `status` say; `nil` when nothing.
    ///
    /// `RateLimit` is read in the draft's current form, a list of policies each with `r`
    /// (remaining) and `t` (seconds to reset): `"default";r=50;t=30`; the most restrictive
    /// policy counts, with its `q` (quota) and `w` (window) from `RateLimit-Policy`
    /// (`"default";q=100;w=60`). The earlier forms are read too: a dictionary
    /// `limit=100, remaining=50, reset=30`, and the separate `RateLimit-Limit`,
    /// `RateLimit-Remaining` and `RateLimit-Reset` fields. Values that are not what the draft
    /// allows are ignored; a quota spent (`r=0`) is a pause until its reset.
    static func read(status: Int, headers: Headers, now: Date = Date()) -> BudgetNotice? {
        var notice = BudgetNotice()
        if status == 429 || status == 503, let value = headers["Retry-After"], let delay = RetryStateMachine.delay(retryAfter: value, now: now) {
            notice.pause = min(delay, .seconds(Int64(longest)))
        }
        if let window = currentForm(headers) ?? dictionaryForm(headers) ?? separateFields(headers) {
            notice.remaining = window.remaining
            notice.reset = window.reset
            notice.quota = window.quota
            notice.window = window.window
            if window.remaining == 0, let reset = window.reset {
                let spent = Duration.milliseconds(Int64(reset * 1000))
                notice.pause = max(notice.pause ?? .zero, spent)
            }
        }
        return notice == BudgetNotice() ? nil : notice
    }

    /// One policy's state: the fields of ``BudgetNotice`` a `RateLimit` field gives.
    private struct Window {
        var remaining: Int64
        var reset: Double?
        var quota: Int64?
        var window: Double?
    }

    /// `RateLimit: "name";r=…;t=…`, with `RateLimit-Policy: "name";q=…;w=…`.
    private static func currentForm(_ headers: Headers) -> Window? {
        guard let items = list(headers.values(for: "RateLimit")) else { return nil }
        var policies: [String: (quota: Int64?, window: Double?)] = [:]
        for item in list(headers.values(for: "RateLimit-Policy")) ?? [] {
            guard let name = name(of: item) else { continue }
            policies[name] = (count(item.rfc9651Parameters["q"]), seconds(item.rfc9651Parameters["w"]))
        }
        var tightest: Window?
        for item in items {
            guard let name = name(of: item), let remaining = count(item.rfc9651Parameters["r"]) else { continue }
            let policy = policies[name]
            let window = Window(remaining: remaining, reset: seconds(item.rfc9651Parameters["t"]), quota: policy?.quota, window: policy?.window)
            if let current = tightest,
                current.remaining < window.remaining
                    || (current.remaining == window.remaining && (current.reset ?? 0) >= (window.reset ?? 0))
            {
                continue
            }
            tightest = window
        }
        return tightest
    }

    /// `RateLimit: limit=…, remaining=…, reset=…` (the draft's earlier dictionary form).
    private static func dictionaryForm(_ headers: Headers) -> Window? {
        let values = headers.values(for: "RateLimit")
        guard !values.isEmpty else { return nil }
        var parser = StructuredFieldValueParser(Array(values.joined(separator: ", ").utf8))
        guard let dictionary = try? parser.parseDictionaryFieldValue() else { return nil }
        func value(_ key: String) -> RFC9651BareItem? {
            guard case .item(let item)? = dictionary[key] else { return nil }
            return item.rfc9651BareItem
        }
        guard let remaining = count(value("remaining")) else { return nil }
        return Window(remaining: remaining, reset: seconds(value("reset")), quota: count(value("limit")), window: nil)
    }

    /// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (the draft's first form).
    private static func separateFields(_ headers: Headers) -> Window? {
        func number(_ name: String) -> Int64? {
            guard let text = headers[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
                text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return Int64(text)
        }
        guard let remaining = number("RateLimit-Remaining") else { return nil }
        return Window(remaining: remaining, reset: number("RateLimit-Reset").map { min(Double($0), longest) }, quota: number("RateLimit-Limit"))
    }

    /// The items of a list field; `nil` when absent or not a valid list.
    private static func list(_ values: [String]) -> [Item]? {
        guard !values.isEmpty else { return nil }
        var parser = StructuredFieldValueParser(Array(values.joined(separator: ", ").utf8))
        guard let members = try? parser.parseListFieldValue() else { return nil }
        return members.compactMap { member in
            if case .item(let item) = member { return item }
            return nil
        }
    }

    /// A policy's name: a string or a token.
    private static func name(of item: Item) -> String? {
        switch item.rfc9651BareItem {
        case .string(let name), .token(let name): return name
        default: return nil
        }
    }

    /// A non-negative integer.
    private static func count(_ item: RFC9651BareItem?) -> Int64? {
        guard case .integer(let value)? = item, value >= 0 else { return nil }
        return value
    }

    /// A non-negative integer of seconds, at most ``longest``.
    private static func seconds(_ item: RFC9651BareItem?) -> Double? {
        count(item).map { min(Double($0), longest) }
    }
}
