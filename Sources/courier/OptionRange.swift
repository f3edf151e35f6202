import ArgumentParser

/// The accepted range of every numeric option, checked as the command line is parsed, so
/// before anything is sent. A value out of range, not finite or not a number is a usage error
/// (exit status 2) on one line, `The value 'V' is invalid for '--option <n>': give …`, naming
/// the option and the range; nothing here can trap.
///
/// Each option declares `parsing: .unconditional` so that a negative value such as `-1` is read
/// as the option's value, and refused here, rather than taken for an unknown flag.
enum OptionRange {
    /// The longest a seconds option (`--timeout`, `--deadline`) may be: 365 days.
    static let maximumSeconds = 31_536_000

    /// `--max-redirects`: 0 to 100.
    static let redirects = 0...100
    /// `--retry`: 0 to 100.
    static let retries = 0...100
    /// `download --attempts`: 1 to 1000.
    static let attempts = 1...1000
    /// `batch --concurrency`: 1 to 1024; each request in flight holds a connection, and 1024 is
    /// the usual limit of open files of a process.
    static let concurrency = 1...1024
    /// `fetch --max-filesize`: any size a file can have.
    static let bytes: ClosedRange<Int64> = 0...Int64.max
    /// `--cache-max-bytes`: at least one byte.
    static let cacheBytes = 1...Int.max

    /// A parser of a whole number in `range`.
    static func whole<Value: FixedWidthInteger & Sendable>(in range: ClosedRange<Value>) -> @Sendable (String) throws -> Value {
        { text in
            guard let value = Value(text), range.contains(value) else {
                throw ValidationError("give a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }

    /// A parser of a number of seconds more than 0 and at most ``maximumSeconds``, as a
    /// `Duration` (rounded up to the nanosecond, so that a tiny value is not 0).
    static func seconds() -> @Sendable (String) throws -> Duration {
        { text in
            // `nan` and `-0` fail `> 0`; `inf` and `1e300` fail the maximum.
            guard let seconds = Double(text), seconds > 0, seconds <= Double(maximumSeconds) else {
                throw ValidationError("give seconds more than 0 and at most \(maximumSeconds) (365 days)")
            }
            // At most 3.2e16 nanoseconds: well inside Int64.
            return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
        }
    }
}
