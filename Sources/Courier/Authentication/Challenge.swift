/// One authentication challenge of a `WWW-Authenticate` field (RFC 9110 §11.3): a scheme and
/// either a token68 or a list of parameters.
struct Challenge: Hashable, Sendable {
    /// The scheme, lower-cased: `basic`, `digest`, `bearer`…
    var scheme: String
    /// The token68 form of the challenge's data, when it has one.
    var token68: String?
    /// The parameters, by lower-cased name, with quoted values unquoted. A name given twice
    /// keeps its first value.
    var parameters: [String: String]

    init(scheme: String, token68: String? = nil, parameters: [String: String] = [:]) {
        self.scheme = scheme.lowercased()
        self.token68 = token68
        self.parameters = parameters
    }

    /// The value of parameter `name` (any case).
    subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Every challenge of the given `WWW-Authenticate` field values, in order.
    static func parse(_ fieldValues: [String]) -> [Challenge] {
        fieldValues.flatMap { value in
            var parser = ChallengeParser(Array(value.utf8))
            return parser.challenges()
        }
    }
}
