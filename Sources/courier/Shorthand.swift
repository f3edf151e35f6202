/// HTTPie's shorthand: `courier URL …` is `courier fetch URL …`, and `courier METHOD URL …`
/// sends `METHOD`. A command line is read before ArgumentParser sees it: one that starts with a
/// command or an option is left as it is.
enum Shorthand {
    /// A command line as ArgumentParser is to read it.
    struct Reading: Equatable {
        /// The arguments to parse.
        var arguments: [String]
        /// A sentence to add to ArgumentParser's error when the first argument is neither a
        /// command, a method nor a URL.
        var hint: String?
    }

    /// The shapes of a URL the shorthand accepts, for messages.
    static let urlShapes = "http://…, https://…, :PORT/PATH or :/PATH (localhost), localhost:PORT/PATH or HOST.DOMAIN/PATH (http:// is added)"

    /// Reads `arguments`; `commands` are the subcommands' names.
    static func read(_ arguments: [String], commands: Set<String>) throws(CommandFailure) -> Reading {
        guard let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) else {
            return Reading(arguments: arguments)
        }
        let rest = arguments.dropFirst()
        if isMethod(first) {
            guard let next = rest.first, let url = url(next) else {
                throw CommandFailure(.invalidInput, "\(first) is read as a method, which must be followed by a URL: \(urlShapes)")
            }
            return Reading(arguments: ["fetch", "--method", first, url] + httpieSpellings(rest.dropFirst()))
        }
        if let url = url(first) {
            return Reading(arguments: ["fetch", url] + httpieSpellings(rest))
        }
        let hint = "Give a command (courier --help lists them), a URL (\(urlShapes)) or METHOD URL (a method in capitals, such as GET or POST)."
        return Reading(arguments: arguments, hint: hint)
    }

    /// Whether `text` is a method in capitals: a letter, then letters, digits, `-` or `_`.
    static func isMethod(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, ("A"..."Z").contains(first), text.utf8.count <= 64 else { return false }
        return text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    /// The URL `text` stands for, or `nil` when it is not one of the shapes the shorthand takes.
    static func url(_ text: String) -> String? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") { return text }
        if text.hasPrefix(":") {
            let rest = text.dropFirst()
            let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            let port = rest[..<end]
            guard port.count <= 5, isDigits(port) else { return nil }
            let authority = port.isEmpty ? "localhost" : "localhost:" + String(port)
            return "http://" + authority + String(rest[end...])
        }
        let end = text.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        return isAuthority(text[..<end]) ? "http://" + text : nil
    }

    /// Whether `authority` is `localhost` or a dotted host name, with an optional port.
    private static func isAuthority(_ authority: Substring) -> Bool {
        var host = authority
        if let colon = authority.lastIndex(of: ":") {
            let port = authority[authority.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, isDigits(port) else { return false }
            host = authority[..<colon]
        }
        if host.lowercased() == "localhost" { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
            }
    }

    /// Whether `text` holds ASCII digits only.
    private static func isDigits(_ text: Substring) -> Bool {
        text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }

    /// HTTPie's `--form` (`-f`) and `--json` flags, spelled as `fetch` names them; nothing after
    /// a lone `--`. On a line in curl's word order, or one that names `fetch`, `-f` is curl's
    /// `--fail`.
    private static func httpieSpellings(_ arguments: ArraySlice<String>) -> [String] {
        var spelled: [String] = []
        var ended = false
        for argument in arguments {
            if argument == "--" { ended = true }
            switch argument {
            case "--form" where !ended, "-f" where !ended: spelled.append("--form-items")
            case "--json" where !ended: spelled.append("--json-items")
            default: spelled.append(argument)
            }
        }
        return spelled
    }
}
