/// The order in which options of several kinds were given on the command line, for options
/// whose relative order matters (`--form` and `--file`, the data options) but which
/// ArgumentParser keeps in separate arrays.
enum ArgumentOrder {
    /// The kind of each option of `spellings` in `arguments`, in order, up to a lone `--`.
    /// A long spelling matches `--name` and `--name=value`; a short one matches `-n` only.
    static func kinds<Kind>(in arguments: [String], spellings: [String: Kind]) -> [Kind] {
        var kinds: [Kind] = []
        for argument in arguments {
            if argument == "--" { break }
            if let kind = spellings[argument] {
                kinds.append(kind)
            } else if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "="),
                let kind = spellings[String(argument[..<equals])]
            {
                kinds.append(kind)
            }
        }
        return kinds
    }
}
