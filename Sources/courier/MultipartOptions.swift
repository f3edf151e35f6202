import Courier
import Foundation

/// Builds `fetch`'s multipart body from `-F/--form` and `--file` options, in command-line order.
struct MultipartOptions {
    /// One `--file name=@PATH[;type=MIME][;filename=NAME]`, or a `-F/--form` value of that shape.
    struct FileField: Equatable {
        var name: String
        var path: String
        var contentType: String?
        var filename: String?

        /// Parses the option's value; `option` is how messages name the option.
        init(_ text: String, option: String = "--file") throws(CommandFailure) {
            let usage = "\(option) \(text) is not name=@PATH[;type=MIME][;filename=NAME]"
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CommandFailure(.invalidInput, usage)
            }
            name = String(text[..<equals])
            let value = text[text.index(after: equals)...]
            guard value.hasPrefix("@") else {
                throw CommandFailure(.invalidInput, "\(option) \(text): the value must be @PATH, the file to upload")
            }
            var pieces = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false)
            path = String(pieces.removeFirst())
            guard !path.isEmpty else { throw CommandFailure(.invalidInput, "\(option) \(text): the path is empty") }
            for piece in pieces {
                let parameter = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parameter.count == 2, !parameter[1].isEmpty else {
                    throw CommandFailure(.invalidInput, "\(option) \(text): '\(piece)' is not type=MIME or filename=NAME")
                }
                switch parameter[0].lowercased() {
                case "type" where contentType == nil: contentType = String(parameter[1])
                case "filename" where filename == nil: filename = String(parameter[1])
                default:
                    throw CommandFailure(.invalidInput, "\(option) \(text): unknown or repeated parameter '\(parameter[0])'; use type= and filename= at most once each")
                }
            }
        }
    }

    /// Where a field came from, in command-line order.
    enum Source: Equatable {
        case form
        case file
    }

    /// The order of `-F/--form` and `--file` options in `arguments` (up to a lone `--`).
    static func order(in arguments: [String]) -> [Source] {
        ArgumentOrder.kinds(in: arguments, spellings: ["--form": .form, "-F": .form, "--file": .file])
    }

    /// One `-F/--form` value: `name=value` is a field, `name=<PATH` a field whose value is the
    /// file's text, and `name=@PATH[;type=MIME][;filename=NAME]` a file, as curl reads them.
    enum Part {
        case field(name: String, value: String)
        case file(FileField)

        /// Parses one `-F/--form` value; a `<PATH` file is checked and read here, before anything is sent.
        init(_ text: String) throws(CommandFailure) {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CommandFailure(.invalidInput, "--form \(text) is not name=value, name=@PATH or name=<PATH")
            }
            let name = String(text[..<equals])
            let value = text[text.index(after: equals)...]
            if value.hasPrefix("@") {
                self = .file(try FileField(text, option: "--form"))
            } else if value.hasPrefix("<") {
                let path = String(value.dropFirst())
                let contents = try PathCheck.contents(of: path, named: "--form \(name)=<\(path)")
                self = .field(name: name, value: String(decoding: contents, as: UTF8.self))
            } else {
                self = .field(name: name, value: String(value))
            }
        }
    }

    let formFields: [Part]
    let files: [FileField]
    /// The command line, to put fields and files in the order they were given.
    let arguments: [String]

    /// The body: every field and file, in command-line order (fields first when the order
    /// cannot be told).
    func body() throws(CommandFailure) -> CourierRequestBody {
        var order = Self.order(in: arguments)
        if order.filter({ $0 == .form }).count != formFields.count || order.filter({ $0 == .file }).count != files.count {
            order = Array(repeating: .form, count: formFields.count) + Array(repeating: .file, count: files.count)
        }
        var form = MultipartForm()
        var nextField = formFields.makeIterator()
        var nextFile = files.makeIterator()
        for source in order {
            switch source {
            case .form:
                switch nextField.next()! {
                case .field(let name, let value): form.addField(value, named: name)
                case .file(let file): try Self.add(file, option: "--form", to: &form)
                }
            case .file:
                try Self.add(nextFile.next()!, option: "--file", to: &form)
            }
        }
        do {
            return try .multipart(form)
        } catch {
            throw CommandFailure(.invalidInput, "--file: \(error.message)")
        }
    }

    /// Adds a file part, once its path is known to be a regular file that can be read: it is
    /// uploaded as it is read, and the library opens it without waiting too.
    private static func add(_ file: FileField, option: String, to form: inout MultipartForm) throws(CommandFailure) {
        try PathCheck.readableFile(file.path, named: "\(option) \(file.name)=@\(file.path)")
        form.addFile(at: URL(fileURLWithPath: file.path), named: file.name, filename: file.filename, contentType: file.contentType)
    }
}
