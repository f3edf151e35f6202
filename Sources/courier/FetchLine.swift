/// curl's everyday `fetch` lines (`courier -s -o FILE URL`, `courier -d a=1 -H 'X: y' URL`,
/// `courier -sSL URL`), read into ``FetchCommand`` without ArgumentParser.
///
/// ArgumentParser learns a command's options by reflecting on the command's type at every run,
/// and the Swift runtime answers the first cast of each type that reflection makes by scanning
/// every protocol conformance record in the binary (more than 11,000 in `courier`). Reading
/// `fetch`'s options that way was about 40% of the instructions of a small GET. A line made only
/// of the options below and one URL is read here instead, into the same command.
///
/// Anything else is declined, and ArgumentParser reads the line as before, or explains what is
/// wrong with it: any other option, help and version, a lone `--`, more than one word that is
/// not an option (request items), a value that starts with `-`, an option given twice, a flag
/// given a value, a number ArgumentParser's transform refuses. The spellings below are
/// ArgumentParser's own; the tests try every spelling `fetch` declares, alone, twice and in
/// short clusters, and check that whatever is read here is the command ArgumentParser makes.
enum FetchLine {
    /// `arguments` (the words after `fetch`) as the command ArgumentParser makes of them, or
    /// `nil` when the line is left to ArgumentParser.
    static func command(_ arguments: [String]) -> FetchCommand? {
        var command = FetchCommand.withDefaults()
        var url: String?
        var words = arguments.makeIterator()
        do throws(Declined) {
            while let word = words.next() {
                guard word.hasPrefix("-") else {
                    // One URL; more words are request items, left to ArgumentParser.
                    guard url == nil else { throw Declined() }
                    url = word
                    continue
                }
                if word.hasPrefix("--") {
                    try readLong(word, into: &command, next: { words.next() })
                } else {
                    try readShort(word, into: &command, next: { words.next() })
                }
            }
            guard let url else { throw Declined() }
            command.url = url
            // As ArgumentParser does once a line is read (the refused flags are not read here,
            // so this does not fail today; it keeps the two roads the same if that changes).
            do { try command.client.validate() } catch { throw Declined() }
            return command
        } catch {
            return nil
        }
    }

    /// A line this reader leaves to ArgumentParser.
    private struct Declined: Error {}

    /// Reads `--name` or `--name=value`.
    private static func readLong(_ word: String, into command: inout FetchCommand, next: () -> String?) throws(Declined) {
        guard let equals = word.firstIndex(of: "=") else {
            try read(word, into: &command, value: { () throws(Declined) in try checked(next()) })
            return
        }
        // ArgumentParser refuses an empty value given with `=`.
        guard equals != word.index(before: word.endIndex) else { throw Declined() }
        var attached: String? = String(word[word.index(after: equals)...])
        try read(String(word[..<equals]), into: &command, value: { () throws(Declined) in try checked(attached.take()) })
        // A flag given a value is ArgumentParser's error to explain.
        guard attached == nil else { throw Declined() }
    }

    /// Reads `-n` (an option with its value in the next word, or a flag) or `-abc` (flags only).
    private static func readShort(_ word: String, into command: inout FetchCommand, next: () -> String?) throws(Declined) {
        let letters = word.dropFirst()
        guard !letters.isEmpty, letters.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw Declined() }
        if letters.count == 1 {
            try read(word, into: &command, value: { () throws(Declined) in try checked(next()) })
            return
        }
        for letter in letters {
            try read("-" + String(letter), into: &command, value: { () throws(Declined) in throw Declined() })
        }
    }

    /// A value as ArgumentParser takes it from the next word: present, and not an option.
    private static func checked(_ value: String?) throws(Declined) -> String {
        guard let value, !value.hasPrefix("-") else { throw Declined() }
        return value
    }

    /// Applies the option spelled `spelling`, taking its value from `value` if it has one.
    private static func read(_ spelling: String, into command: inout FetchCommand, value: () throws(Declined) -> String) throws(Declined) {
        switch spelling {
        // Flags.
        case "-s", "--silent": try raise(&command.client.silent)
        case "-S", "--show-error": try raise(&command.client.showError)
        case "-v", "--verbose": try raise(&command.client.verbose)
        case "-L", "--location": try raise(&command.client.location)
        case "--no-follow": try raise(&command.client.noFollow)
        case "-i", "--include": try raise(&command.include)
        case "-I", "--head": try raise(&command.headOnly)
        case "-O", "--remote-name": try raise(&command.remoteName)
        case "-J", "--remote-header-name": try raise(&command.remoteHeaderName)
        case "-f", "--fail": try raise(&command.fail)
        case "--fail-with-body": try raise(&command.failWithBody)
        case "--compressed": try raise(&command.compressed)
        case "--form-items": try raise(&command.formItems)
        case "-j", "--json-items": try raise(&command.jsonItems)
        case "--multipart": try raise(&command.multipartItems)
        case "-G", "--get": try raise(&command.body.get)
        case "--create-dirs": try raise(&command.createDirs)
        // Options with one value.
        case "-o", "--output": try store(value(), in: &command.output)
        case "-w", "--write-out": try store(value(), in: &command.writeOut)
        case "-D", "--dump-header": try store(value(), in: &command.dumpHeader)
        case "--output-dir": try store(value(), in: &command.outputDir)
        case "-X", "--method": try store(value(), in: &command.method)
        case "-A", "--user-agent": try store(value(), in: &command.userAgent)
        case "-e", "--referer": try store(value(), in: &command.referer)
        case "-r", "--range": try store(value(), in: &command.range)
        case "-u", "--user": try store(value(), in: &command.authentication.user)
        case "--bearer": try store(value(), in: &command.authentication.bearer)
        case "-c", "--cookie-jar": try store(value(), in: &command.client.cookieJar)
        case "-T", "--upload-file": try store(value(), in: &command.body.uploadFile)
        case "--json": try store(value(), in: &command.body.json)
        case "-m", "--timeout", "--max-time": try store(transformed(value(), OptionRange.seconds()), in: &command.client.timeout)
        case "--connect-timeout": try store(transformed(value(), OptionRange.seconds()), in: &command.client.connectTimeout)
        case "--retry": try store(transformed(value(), OptionRange.whole(in: OptionRange.retries)), in: &command.client.retry)
        case "--max-redirects": try store(transformed(value(), OptionRange.whole(in: OptionRange.redirects)), in: &command.client.maxRedirects)
        // Options that may be given again, each value kept in order.
        case "-H", "--header": try command.headers.append(value())
        case "--query": try command.queryItems.append(value())
        case "-d", "--data", "--data-ascii": try command.body.data.append(value())
        case "--data-raw": try command.body.dataRaw.append(value())
        case "--data-binary": try command.body.dataBinary.append(value())
        case "--data-urlencode": try command.body.dataURLEncode.append(value())
        case "-F", "--form": try command.body.formFields.append(value())
        case "--file": try command.body.files.append(value())
        case "-b", "--cookie": try command.client.cookie.append(value())
        default: throw Declined()
        }
    }

    /// Sets a flag; one given twice is left to ArgumentParser.
    private static func raise(_ flag: inout Bool) throws(Declined) {
        guard !flag else { throw Declined() }
        flag = true
    }

    /// Sets an option's value; one given twice is left to ArgumentParser.
    private static func store<Value>(_ value: Value, in slot: inout Value?) throws(Declined) {
        guard slot == nil else { throw Declined() }
        slot = value
    }

    /// `value` through the option's own transform; a value it refuses is left to
    /// ArgumentParser, which names the option and the range in its message.
    private static func transformed<Value>(_ value: String, _ transform: (String) throws -> Value) throws(Declined) -> Value {
        do { return try transform(value) } catch { throw Declined() }
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
