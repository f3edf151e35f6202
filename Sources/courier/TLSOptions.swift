import ArgumentParser
import Courier
import Foundation

/// `--cacert`, `--pin`, `--cert`/`--key`, `--p12` and `--tls-min` (or curl's `--tlsv1.2` and
/// `--tlsv1.3`): the TLS settings of every https request.
struct TLSOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Trust only the CA certificates in this PEM or DER file instead of the system's (repeatable).", valueName: "path"))
    var cacert: [String] = []

    @Option(help: ArgumentHelp("Accept a server only if its verified chain holds a key with this SHA-256 SubjectPublicKeyInfo digest (repeatable: give backups).", valueName: "sha256/BASE64"))
    var pin: [String] = []

    @Option(help: ArgumentHelp("A client certificate in PEM, shown to servers that ask for one.", valueName: "path"))
    var cert: String?

    @Option(help: ArgumentHelp("The private key of --cert in PEM (default: the --cert file itself).", valueName: "path"))
    var key: String?

    @Option(help: ArgumentHelp("A client certificate and key in a PKCS#12 bundle.", valueName: "path"))
    var p12: String?

    @Option(name: .customLong("tls-min"), help: ArgumentHelp("The oldest TLS version accepted: 1.2 (default) or 1.3; 1.1 and 1.0 are broken and only for a legacy server you trust.", valueName: "version"))
    var tlsMinimum: String?

    @Flag(name: .customLong("tlsv1.2"), help: "Accept TLS 1.2 or later: the same as --tls-min 1.2, the default.")
    var tls12 = false

    @Flag(name: .customLong("tlsv1.3"), help: "Accept only TLS 1.3 or later: the same as --tls-min 1.3.")
    var tls13 = false

    @Option(name: .customLong("p12-password-env"), help: ArgumentHelp("The environment variable holding the --p12 password.", valueName: "var"))
    var p12PasswordEnv: String?

    /// Adds these settings to `configuration`.
    func apply(to configuration: inout ClientConfiguration, environment: [String: String] = CourierCLI.environment ?? ProcessInfo.processInfo.environment) throws {
        if !cacert.isEmpty {
            configuration.tls.trustRoots = .only(try cacert.map { .file(try TLSOptions.existing($0, "--cacert")) })
        }
        if !pin.isEmpty {
            do {
                configuration.tls.pins = [HostPins(host: "*", pins: try pin.map { try Pin($0) })]
            } catch {
                throw CommandFailure(.invalidInput, "--pin: \((error as? CourierError)?.message ?? "\(error)")")
            }
        }
        configuration.tls.clientIdentity = try identity(environment: environment)
        let floors = [tlsMinimum, tls12 ? "1.2" : nil, tls13 ? "1.3" : nil].compactMap { $0 }
        guard floors.count <= 1 else {
            throw CommandFailure(.invalidInput, "give only one of --tls-min, --tlsv1.2 and --tlsv1.3")
        }
        if let tlsMinimum = floors.first {
            switch tlsMinimum {
            case "1.3": configuration.tls.minimumVersion = .tls13
            case "1.2": configuration.tls.minimumVersion = .tls12
            case "1.1": configuration.tls.minimumVersion = .insecureTLS11
            case "1.0": configuration.tls.minimumVersion = .insecureTLS10
            default: throw CommandFailure(.invalidInput, "--tls-min \(tlsMinimum) is not a TLS version; give 1.2 or 1.3 (1.1 and 1.0 only for a legacy server)")
            }
        }
    }

    private func identity(environment: [String: String]) throws -> ClientIdentity? {
        switch (cert, p12) {
        case (nil, nil):
            guard key == nil, p12PasswordEnv == nil else {
                throw CommandFailure(.invalidInput, key != nil ? "--key needs --cert" : "--p12-password-env needs --p12")
            }
            return nil
        case (.some, .some):
            throw CommandFailure(.invalidInput, "use either --cert/--key or --p12, not both")
        case (let cert?, nil):
            let certificate = try TLSOptions.existing(cert, "--cert")
            let key = try TLSOptions.existing(key ?? cert, "--key")
            return .pem(certificate: .file(certificate), privateKey: .file(key))
        case (nil, let bundle?):
            var password = ""
            if let variable = p12PasswordEnv {
                guard let value = environment[variable] else {
                    throw CommandFailure(.invalidInput, "--p12-password-env \(variable): the variable is not set")
                }
                password = value
            }
            return .pkcs12(.file(try TLSOptions.existing(bundle, "--p12")), password: password)
        }
    }

    /// `path`, once it is known to be a regular file that can be read.
    private static func existing(_ path: String, _ option: String) throws -> String {
        // curl's statuses: a CA file that cannot be read is 77, a client certificate or key 58.
        try PathCheck.readableFile(path, named: "\(option) \(path)", status: option == "--cacert" ? .caCertificateFile : .localCertificate)
        return path
    }
}
