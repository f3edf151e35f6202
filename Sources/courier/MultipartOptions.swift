import Courier
import Foundation

/// Builds `fetch`'s multipart body from `--form` and `--file` options, in command-line order.
struct MultipartOptions {
    /// One `--file name=@PATH[;type=MIME][;filename=NAME]`.
    struct FileField: Equatable {
        var name: String
        var path: String
        var contentType: String?
        var filename: String?

        /// Parses the option's value.
        init(_ text: String) throws(CommandFailure) {
            let usage = "--file \(text) is not name=@PATH[;type=MIME][;filename=NAME]"
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw CommandFailure(.invalidInput, usage)
            }
            name = String(text[..<equals])
            let value = text[text.index(after: equals)...]
            guard value.hasPrefix("@") else {
                throw CommandFailure(.invalidInput, "--file \(text): the value must be @PATH, the file to upload")
            }
            var pieces = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false)
            path = String(pieces.removeFirst())
            guard !path.isEmpty else { throw CommandFailure(.invalidInput, "--file \(text): the path is empty") }
            for piece in pieces {
                let parameter = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parameter.count == 2, !parameter[1].isEmpty else {
                    throw CommandFailure(.invalidInput, "--file \(text): '\(piece)' is not type=MIME or filename=NAME")
                }
                switch parameter[0].lowercased() {
                case "type" where contentType == nil: contentType = String(parameter[1])
                case "filename" where filename == nil: filename = String(parameter[1])
                default:
                    throw CommandFailure(.invalidInput, "--file \(text): unknown or repeated parameter '\(parameter[0])'; use type= and filename= at most once each")
                }
            }
        }
    }

    /// Where a field came from, in command-line order.
    enum Source: Equatable {
        case form
        case file
    }

    /// The order of `--form` and `--file` options in `arguments` (up to a lone `--`).
    static func order(in arguments: [String]) -> [Source] {
        var order: [Source] = []
        for argument in arguments {
            if argument == "--" { break }
            if argument == "--form" || argument.hasPrefix("--form=") { order.append(.form) }
            if argument == "--file" || argument.hasPrefix("--file=") { order.append(.file) }
        }
        return order
    }

    let formFields: [(name: String, value: String)]
    let files: [FileField]
    /// The command line, to put fields and files in the order they were given.
    let arguments: [String]

    /// The body: every field and file, in command-line order (fields first when the order
    /// cannot be told).
    func body() throws(CommandFailure) -> RequestBody {
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
                let field = nextField.next()!
                form.addField(field.value, named: field.name)
            case .file:
                let file = nextFile.next()!
                // Uploaded as it is read, after this check: the library opens it without waiting too.
                try PathCheck.readableFile(file.path, named: "--file \(file.name)=@\(file.path)")
                form.addFile(at: URL(fileURLWithPath: file.path), named: file.name, filename: file.filename, contentType: file.contentType)
            }
        }
        do {
            return try .multipart(form)
        } catch {
            throw CommandFailure(.invalidInput, "--file: \(error.message)")
        }
    }
}
