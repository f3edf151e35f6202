import Courier
import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

#if canImport(FoundationXML) || os(macOS)
extension CourierResponse {
    /// Parses the body as an XML document.
    ///
    /// A body that is not well-formed XML throws ``Courier/CourierError`` of kind
    /// ``Courier/CourierError/Kind/decodingFailed``, with the parser's message and line.
    public func xmlDocument() throws(CourierError) -> XMLDocument {
        // XMLDocument recovers from some malformed documents on Linux; XMLParser does not.
        let parser = XMLParser(data: body)
        guard parser.parse(), parser.parserError == nil else {
            throw CourierError(
                .decodingFailed,
                "The body is not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "unknown error") at line \(parser.lineNumber).",
                url: url, response: self, underlyingError: parser.parserError
            )
        }
        do {
            return try XMLDocument(data: body, options: [])
        } catch {
            throw CourierError(
                .decodingFailed, "The body is not well-formed XML: \(error).",
                url: url, response: self, underlyingError: error
            )
        }
    }
}
#endif
