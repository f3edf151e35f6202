import Courier
import Foundation

/// `-w/--write-out FORMAT`: text printed to stdout after the body, with `%{name}` variables
/// and `\n`, `\r`, `\t`, `\\` escapes, as curl writes it. The format is read before anything
/// is sent, so an unknown variable is a usage error. Values that come from the network (the
/// URL, the content type) are escaped like every other line `courier` prints.
struct WriteOut: Equatable {
    /// The variables a format can name.
    enum Variable: String, CaseIterable {
        case httpCode = "http_code"
        case timeTotal = "time_total"
        case sizeDownload = "size_download"
        case urlEffective = "url_effective"
        case contentType = "content_type"
        case numRedirects = "num_redirects"
    }

    /// One piece of a format: text written as it is, or a variable.
    enum Piece: Equatable {
        case text(String)
        case variable(Variable)
    }

    /// What the variables stand for, once the response has been delivered.
    struct Values {
        var status: Int
        var seconds: Duration
        var bodyBytes: Int64
        var url: URL
        var contentType: String?
        var redirects: Int

        /// The values of `response`, whose body had `bodyBytes` bytes, after `seconds`.
        init(_ response: CourierResponse, bodyBytes: Int64, seconds: Duration) {
            status = response.status
            self.seconds = seconds
            self.bodyBytes = bodyBytes
            url = response.url
            contentType = response.headers["Content-Type"]
            redirects = response.redirects.count
        }
    }

    let pieces: [Piece]

    /// Parses `-w`'s argument: a format, or as in curl `@FILE` (`@-`: standard input) for a
    /// format read from a file, its final line break left out.
    init(argument: String) throws {
        guard argument.hasPrefix("@") else {
            try self.init(argument)
            return
        }
        try self.init(String(decoding: try FetchBodyOptions.read(argument, option: "-w"), as: UTF8.self))
    }

    /// Parses `format`; an unknown or unclosed `%{…}` is refused.
    init(_ format: String) throws(CommandFailure) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let first = rest.first {
            if first == "\\", rest.count > 1 {
                let next = rest[rest.index(after: rest.startIndex)]
                let escapes: [Character: String] = ["n": "\n", "r": "\r", "t": "\t", "\\": "\\"]
                if let escaped = escapes[next] {
                    text += escaped
                    rest = rest.dropFirst(2)
                    continue
                }
            } else if first == "%", rest.dropFirst().first == "%" {
                text += "%"
                rest = rest.dropFirst(2)
                continue
            } else if rest.hasPrefix("%{") {
                guard let close = rest.firstIndex(of: "}") else {
                    throw CommandFailure(.invalidInput, "-w \(format): a %{ is not closed with }")
                }
                let name = String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close])
                guard let variable = Variable(rawValue: name) else {
                    let known = Variable.allCases.map { "%{\($0.rawValue)}" }.joined(separator: ", ")
                    throw CommandFailure(.invalidInput, "-w: %{\(name)} is not a variable courier knows; give one of \(known)")
                }
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(.variable(variable))
                rest = rest[rest.index(after: close)...]
                continue
            }
            text.append(first)
            rest = rest.dropFirst()
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The format with `values` put in.
    func render(_ values: Values) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .variable(let variable): return Self.value(of: variable, in: values)
            }
        }.joined()
    }

    private static func value(of variable: Variable, in values: Values) -> String {
        switch variable {
        case .httpCode: return String(values.status)
        case .timeTotal:
            let (seconds, attoseconds) = values.seconds.components
            let micros = attoseconds / 1_000_000_000_000
            let fraction = String(micros)
            return "\(seconds)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        case .sizeDownload: return String(values.bodyBytes)
        case .urlEffective: return PrintableText.escaping(values.url.absoluteString)
        case .contentType: return PrintableText.escaping(values.contentType ?? "")
        case .numRedirects: return String(values.redirects)
        }
    }
}
