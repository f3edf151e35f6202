extension Headers {
    /// Header names whose values are secrets and never appear in a log line or in the CLI's
    /// verbose output: `Authorization`, `Cookie`, `Proxy-Authorization` and `Set-Cookie`.
    public static let alwaysRedacted: Set<String> = ["authorization", "cookie", "proxy-authorization", "set-cookie"]

    /// What a redacted value is replaced with.
    public static let redactedValue = "<redacted>"

    /// The fields with the values of ``alwaysRedacted`` headers, and of `extra` (lower-cased
    /// names), replaced by ``redactedValue``; for logs.
    public func redacted(alsoHiding extra: Set<String> = []) -> Headers {
        Headers(
            map { field in
                let name = field.name.lowercased()
                let hidden = Headers.alwaysRedacted.contains(name) || extra.contains(name)
                return (field.name, hidden ? Headers.redactedValue : field.value)
            })
    }
}
