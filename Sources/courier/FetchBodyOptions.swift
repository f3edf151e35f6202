import ArgumentParser
import Courier
import Foundation

/// `fetch`'s body options, in curl's spellings and with curl's meaning: the data options
/// (`-d/--data`, `--data-raw`, `--data-binary`, `--data-urlencode`, joined with `&` in command-line order),
/// `--json`, `-F/--form` and `--file` (multipart), and `-T/--upload-file`. Only one of these
/// four kinds of body can be given.
struct FetchBodyOptions: ParsableArguments {
    @Option(
        name: [.customShort("d"), .customLong("data"), .customLong("data-ascii")],
        help: ArgumentHelp("Data to send: TEXT, @PATH (the file, CR and LF removed) or @- (stdin, likewise); sent as application/x-www-form-urlencoded unless -H gives a Content-Type (repeatable; joined with &).", valueName: "data"))
    var data: [String] = []

    @Option(name: .customLong("data-raw"), help: ArgumentHelp("Data to send as it is, a leading @ included (repeatable; joined with &).", valueName: "text"))
    var dataRaw: [String] = []

    @Option(name: .customLong("data-binary"), help: ArgumentHelp("Data to send as it is: TEXT, @PATH or @- (repeatable; joined with &).", valueName: "data"))
    var dataBinary: [String] = []

    @Option(name: .customLong("data-urlencode"), help: ArgumentHelp("Data to send percent-encoded: CONTENT, =CONTENT, NAME=CONTENT, @PATH or NAME@PATH (only CONTENT and the file's bytes are encoded; repeatable; joined with &).", valueName: "data"))
    var dataURLEncode: [String] = []

    @Option(help: "A JSON body: TEXT, or @PATH to read a file.")
    var json: String?

    @Option(
        name: [.customShort("F"), .customLong("form")],
        help: ArgumentHelp("A multipart/form-data part: name=value, name=<PATH (the value read from a file) or name=@PATH[;type=MIME][;filename=NAME] (a file) (repeatable, in command-line order with --file).", valueName: "part"))
    var formFields: [String] = []

    @Option(name: .customLong("file"), help: "A file to upload, name=@PATH[;type=MIME][;filename=NAME] (repeatable; makes the body multipart/form-data, with any --form parts, in command-line order).")
    var files: [String] = []

    @Flag(
        name: [.customShort("G"), .customLong("get")],
        help: "Send the data options (-d, --data-raw, --data-binary, --data-urlencode) in the URL's query instead of the body, joined with &, with GET (HEAD with -I), as curl does.")
    var get = false

    @Option(name: [.customShort("T"), .customLong("upload-file")], help: ArgumentHelp("Send this file's bytes with PUT (- for standard input, sent chunked as it is read); a URL ending in / gets the file's name appended.", valueName: "path"))
    var uploadFile: String?

    /// The kinds of data option, as curl reads each.
    enum DataKind {
        /// `-d/--data`: as it is, CR and LF removed from a file or stdin.
        case text
        /// `--data-raw`: the text as it is, `@` too.
        case raw
        /// `--data-binary`: as it is.
        case binary
        /// `--data-urlencode`: percent-encoded.
        case urlencoded
    }

    /// Whether any data option is given.
    private var isData: Bool { !data.isEmpty || !dataRaw.isEmpty || !dataBinary.isEmpty || !dataURLEncode.isEmpty }

    /// Whether a body is given at all (with `-G` the data options go in the query).
    var givesBody: Bool {
        (isData && !get) || json != nil || !formFields.isEmpty || !files.isEmpty || uploadFile != nil
    }

    /// With `-G`, the data options' text for the URL's query, joined with `&` in command-line
    /// order, as curl appends it; `nil` without `-G` or without data options.
    func queryText(arguments: [String]) throws -> String? {
        guard get else { return nil }
        guard json == nil, formFields.isEmpty, files.isEmpty, uploadFile == nil else {
            throw CommandFailure(
                .invalidInput, "-G/--get sends the data options in the URL's query, and --json, -F/--form, --file and -T/--upload-file send a body: leave out one or the other")
        }
        guard isData else { return nil }
        return String(decoding: try dataBytes(arguments: arguments), as: UTF8.self)
    }

    /// The body these options describe, if any; every file is checked and read (or, for
    /// multipart, checked) here, before anything is sent. `arguments` is the command line, for
    /// the order of the options.
    func body(arguments: [String]) throws -> CourierRequestBody? {
        // With -G the data went to the query (queryText), which refuses any other body.
        if get { return nil }
        let isForm = !formFields.isEmpty || !files.isEmpty
        guard [isData, json != nil, isForm, uploadFile != nil].filter({ $0 }).count <= 1 else {
            throw CommandFailure(.invalidInput, "use only one of the data options (-d, --data-raw, --data-binary, --data-urlencode), --json, -F/--form/--file and -T/--upload-file")
        }
        if isData {
            return .data(try dataBytes(arguments: arguments), contentType: "application/x-www-form-urlencoded")
        }
        if let json {
            return .data(try Self.read(json, option: "--json"), contentType: "application/json")
        }
        if uploadFile == "-" {
            // Sent as it is read, as curl does, chunked.
            return CourierCLI.standardInputPieces.body()
        }
        if let uploadFile {
            // Like curl, no Content-Type of its own (-H can give one), and the file is read
            // while it is sent, not first.
            try PathCheck.readableFile(uploadFile, named: "-T \(uploadFile)")
            do throws(CourierError) {
                return try .file(URL(fileURLWithPath: uploadFile), contentType: nil)
            } catch {
                throw CommandFailure(.readError, "-T \(uploadFile): \(error.message)")
            }
        }
        if isForm {
            let parts = try formFields.map { text throws(CommandFailure) in try MultipartOptions.Part(text) }
            let files = try files.map { text throws(CommandFailure) in try MultipartOptions.FileField(text) }
            return try MultipartOptions(formFields: parts, files: files, arguments: arguments).body()
        }
        return nil
    }

    /// The data options' bytes, each read as its kind, joined with `&` in command-line order
    /// (or `-d`, `--data-raw`, `--data-binary`, `--data-urlencode` when the order cannot be told).
    private func dataBytes(arguments: [String]) throws -> Data {
        var order = ArgumentOrder.kinds(
            in: arguments,
            spellings: [
                "-d": DataKind.text, "--data": .text, "--data-ascii": .text, "--data-raw": .raw, "--data-binary": .binary, "--data-urlencode": .urlencoded,
            ]
        )
        let given: [(DataKind, [String])] = [(.text, data), (.raw, dataRaw), (.binary, dataBinary), (.urlencoded, dataURLEncode)]
        if given.contains(where: { kind, values in order.filter { $0 == kind }.count != values.count }) {
            order = given.flatMap { kind, values in values.map { _ in kind } }
        }
        var text = data.makeIterator()
        var raw = dataRaw.makeIterator()
        var binary = dataBinary.makeIterator()
        var encoded = dataURLEncode.makeIterator()
        var pieces: [Data] = []
        for kind in order {
            switch kind {
            case .text:
                let value = text.next()!
                var bytes = try Self.read(value, option: "--data")
                if value.hasPrefix("@") { bytes.removeAll { $0 == 0x0D || $0 == 0x0A } }
                pieces.append(bytes)
            case .raw:
                pieces.append(Data(raw.next()!.utf8))
            case .binary:
                pieces.append(try Self.read(binary.next()!, option: "--data-binary"))
            case .urlencoded:
                pieces.append(try Self.urlencoded(encoded.next()!))
            }
        }
        return Data(pieces.joined(separator: Data("&".utf8)))
    }

    /// One `--data-urlencode` value: `NAME=CONTENT`, `=CONTENT`, `NAME@PATH`, `@PATH` or
    /// `CONTENT`, whichever of `=` and `@` comes first deciding; the name is sent as it is.
    static func urlencoded(_ value: String) throws -> Data {
        let option = "--data-urlencode"
        guard let separator = value.firstIndex(where: { $0 == "=" || $0 == "@" }) else {
            return percentEncoded(Data(value.utf8))
        }
        let name = String(value[..<separator])
        let rest = String(value[value.index(after: separator)...])
        let content = value[separator] == "=" ? Data(rest.utf8) : try read("@" + rest, option: option)
        return name.isEmpty ? percentEncoded(content) : Data((name + "=").utf8) + percentEncoded(content)
    }

    /// `bytes` with every byte but `A–Z a–z 0–9 - . _ ~` written as `%XX`.
    static func percentEncoded(_ bytes: Data) -> Data {
        let hex = Array("0123456789ABCDEF".utf8)
        var result = Data()
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(byte)
            default:
                result.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return result
    }

    /// TEXT as it is, the contents of PATH for `@PATH`, or standard input for `@-`.
    static func read(_ argument: String, option: String) throws -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let path = String(argument.dropFirst())
        if path == "-" {
            do {
                return try CourierCLI.standardInput()
            } catch {
                throw CommandFailure(.invalidInput, "\(option) @-: standard input cannot be read (\(error.localizedDescription))")
            }
        }
        return try PathCheck.contents(of: path, named: "\(option) @\(path)")
    }
}
