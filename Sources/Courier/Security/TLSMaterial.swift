import Foundation
import SwiftASN1
import X509

/// Certificate or key material, read from a file or given as bytes; PEM or DER.
///
/// Files are read when the first connection that needs them is opened, so a missing or
/// unreadable file fails that request with ``CourierError/Kind/tls`` and
/// ``TLSFailure/unusableMaterial``.
public struct TLSMaterial: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case file(String)
        case bytes(Data)
    }

    let storage: Storage

    /// Material read from the file at `path`.
    public static func file(_ path: String) -> TLSMaterial { TLSMaterial(storage: .file(path)) }

    /// Material given as bytes (PEM text or DER).
    public static func bytes(_ data: Data) -> TLSMaterial { TLSMaterial(storage: .bytes(data)) }

    /// Names the file, or counts the bytes; never shows the contents.
    public var description: String {
        switch storage {
        case .file(let path): return path
        case .bytes(let data): return "\(data.count) bytes"
        }
    }

    /// The raw contents.
    func data() throws(CourierError) -> Data {
        switch storage {
        case .bytes(let data):
            return data
        case .file(let path):
            do {
                return try POSIXFiles.contentsOfRegularFile(path)
            } catch {
                throw TLSFailure.unusableMaterial.error("Could not read \(path) (\(error.reason)); check the path and its permissions.")
            }
        }
    }

    /// Whether the contents are PEM text rather than DER.
    static func isPEM(_ data: Data) -> Bool {
        data.prefix(64 * 1024).range(of: Data("-----BEGIN ".utf8)) != nil
    }

    /// The certificates this material holds, in order: every `CERTIFICATE` block of a PEM
    /// file, or the one certificate of a DER file.
    func certificates() throws(CourierError) -> [Certificate] {
        let data = try self.data()
        do {
            if TLSMaterial.isPEM(data) {
                let text = String(decoding: data, as: UTF8.self)
                let certificates = try PEMDocument.parseMultiple(pemString: text)
                    .filter { $0.discriminator == "CERTIFICATE" }
                    .map { try Certificate(derEncoded: $0.derBytes) }
                guard !certificates.isEmpty else {
                    throw TLSFailure.unusableMaterial.error("\(self) holds no PEM CERTIFICATE block; give a PEM or DER certificate.")
                }
                return certificates
            }
            return [try Certificate(derEncoded: Array(data))]
        } catch let error as CourierError {
            throw error
        } catch {
            throw TLSFailure.unusableMaterial.error("\(self) is not a PEM or DER certificate (\(error)); check the file.")
        }
    }
}
