import Courier
import Foundation
import NIOSSL
import PostgresNIO

/// A `postgres://` (or `postgresql://`) URL read into the settings PostgresNIO takes:
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require&connect_timeout=15`.
/// The queue and the cache read their URLs with it.
package struct PostgresLocation: Sendable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String?
    package var tls: TLSMode
    /// What the database is for, as messages name it: "queue" or "cache".
    package var purpose: String
    /// How long opening may take, from the first connection attempt until the tables are
    /// ready: libpq's `connect_timeout`, in whole seconds.
    package var connectTimeout: Duration = PostgresLocation.defaultConnectTimeout

    /// The bound on opening when the URL sets no `connect_timeout`.
    package static let defaultConnectTimeout: Duration = .seconds(15)
    /// The longest `connect_timeout` taken: an hour.
    package static let longestConnectTimeout = 3600

    /// Whether and how the connection is encrypted, as libpq's `sslmode` says.
    package enum TLSMode: String, Sendable {
        /// Never.
        case disable
        /// When the server offers it; the default.
        case prefer
        /// Always, with the server's certificate verified.
        case require
    }

    /// The URL without its password, for messages and descriptions.
    package var redacted: String {
        var text = "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)"
        if let database { text += "/\(database)" }
        return text
    }

    /// Reads `url`, the URL of the database for `purpose` ("queue" or "cache").
    ///
    /// - Throws: ``CourierError/Kind/invalidConfiguration`` naming what is wrong: another
    ///   scheme, no host, a port out of range, an unknown `sslmode`, a `connect_timeout` that is
    ///   not 1 to 3600 seconds, or another parameter.
    package init(_ url: URL, purpose: String) throws(CourierError) {
        let shown = PostgresLocation.withoutPassword(url)
        guard let scheme = url.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw CourierError(.invalidConfiguration, "The \(purpose) URL \(shown) is not a postgres:// URL.")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = components.host, !host.isEmpty else {
            throw CourierError(.invalidConfiguration, "The \(purpose) URL \(shown) names no host; write postgres://user@host:5432/database.")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw CourierError(.invalidConfiguration, "The \(purpose) URL \(shown) has the port \(port); a port is 1 to 65535.")
        }
        var mode = TLSMode.prefer
        var timeout = PostgresLocation.defaultConnectTimeout
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw CourierError(.invalidConfiguration, "The \(purpose) URL \(shown) has sslmode=\(item.value ?? ""); use disable, prefer or require.")
                }
                mode = value
            case "connect_timeout":
                guard let seconds = item.value.flatMap({ Int($0) }), (1...PostgresLocation.longestConnectTimeout).contains(seconds) else {
                    throw CourierError(
                        .invalidConfiguration,
                        "The \(purpose) URL \(shown) has connect_timeout=\(item.value ?? ""); write whole seconds from 1 to \(PostgresLocation.longestConnectTimeout)."
                    )
                }
                timeout = .seconds(seconds)
            default:
                throw CourierError(
                    .invalidConfiguration, "The \(purpose) URL \(shown) has the parameter \(item.name); only sslmode and connect_timeout are read."
                )
            }
        }
        let database = components.path.split(separator: "/").first.map(String.init)
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.username = components.user ?? "postgres"
        self.password = components.password
        self.database = database
        self.tls = mode
        self.connectTimeout = timeout
        self.purpose = purpose
    }

    /// The pool's settings for this location.
    package func configuration(maximumConnections: Int) -> PostgresClient.Configuration {
        let tlsSetting: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsSetting
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        return configuration
    }

    /// The settings of the one connection that listens for changes.
    package func connectionConfiguration() throws(CourierError) -> PostgresConnection.Configuration {
        let tlsSetting: PostgresConnection.Configuration.TLS
        do {
            switch tls {
            case .disable: tlsSetting = .disable
            case .prefer: tlsSetting = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tlsSetting = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw CourierError(.tls, "TLS for the \(purpose) database at \(redacted) could not be set up: \(error).", underlyingError: error)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsSetting
        )
        configuration.options.connectTimeout = .seconds(connectTimeout.components.seconds)
        return configuration
    }

    /// `url` as text without its password.
    package static func withoutPassword(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else { return url.absoluteString }
        components.password = "***"
        return components.string ?? url.absoluteString
    }
}
