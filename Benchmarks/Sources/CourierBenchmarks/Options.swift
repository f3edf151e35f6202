import Foundation

/// Command-line options of the harness.
struct Options {
    var requests = 5_000
    /// Workers the queue soak kills, and how many run at once.
    var kills = 100
    var workers = 4
    var rounds = 5
    var concurrencies = [1, 16]
    /// Run only the contenders each of these selects: a name that contains the text, or,
    /// written `=NAME`, the one named exactly so (for profiling one of them). Comma-separated
    /// on the command line; a comma inside parentheses is part of a name (see
    /// ``selections(_:)``).
    var only: [String]?

    /// Whether `name` is selected by ``only``.
    func selects(_ name: String) -> Bool {
        guard let only else { return true }
        return only.contains { $0.hasPrefix("=") ? name == $0.dropFirst() : name.contains($0) }
    }
    /// The size of the transfer benchmark's file, in MiB.
    var megabytes = 1_024
    /// The port of a test server started apart (`courier-bench --serve`), used instead of a
    /// child process.
    var serverPort: Int?
    /// The `courier` executable the transfer benchmark runs: by default the one built beside
    /// this harness.
    var courier = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("courier").path

    /// The items of an `--only` list: split at the commas outside parentheses, since the
    /// contenders' names hold commas inside theirs ("Courier (default configuration, on
    /// makeTaskExecutor())"), so that `=NAME` selects that one contender alone.
    static func selections(_ list: String) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for character in list {
            switch character {
            case "(": depth += 1
            case ")": depth = max(0, depth - 1)
            case "," where depth == 0:
                if !current.isEmpty { items.append(current) }
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        if !current.isEmpty { items.append(current) }
        return items
    }

    init(_ arguments: [String]) {
        var index = 1
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--requests": requests = Int(value) ?? requests; index += 1
            case "--rounds": rounds = Int(value) ?? rounds; index += 1
            case "--kills": kills = Int(value) ?? kills; index += 1
            case "--workers": workers = max(1, Int(value) ?? workers); index += 1
            case "--concurrency": concurrencies = value.split(separator: ",").compactMap { Int($0) }; index += 1
            case "--only": only = Options.selections(value); index += 1
            case "--size-mib": megabytes = Int(value) ?? megabytes; index += 1
            case "--courier": courier = value; index += 1
            case "--server-port": serverPort = Int(value); index += 1
            default: break
            }
            index += 1
        }
    }
}
