import Foundation
import Testing

/// What `scripts/install.sh` installs besides the tool: shell completions (written by
/// `courier --generate-completion-script SHELL`) and the manual page (made from
/// `courier --experimental-dump-help`).
@Suite("courier: shell completions and the manual page")
struct CompletionAndManualTests {
    static let subcommands = ["fetch", "download", "batch", "cache", "queue", "demo"]

    @Test(arguments: ["bash", "zsh", "fish"])
    func aCompletionScriptNamesEverySubcommandAndFetchsOptions(shell: String) async {
        let run = await courier("--generate-completion-script", shell)
        #expect(run.status == 0, "\(run.stderr)")
        for name in Self.subcommands + ["max-filesize", "data-urlencode", "connect-timeout"] {
            #expect(run.stdout.contains(name), "\(shell) completion lacks \(name)")
        }
    }

    @Test func theBashCompletionScriptAndTheInstallScriptAreValidBash() async throws {
        let run = await courier("--generate-completion-script", "bash")
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("courier-completion-\(UUID().uuidString).bash")
        try run.raw.write(to: script)
        defer { try? FileManager.default.removeItem(at: script) }
        let install = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/install.sh").standardized
        for file in [script, install] {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/bin/bash")
            check.arguments = ["-n", file.path]
            let errors = Pipe()
            check.standardError = errors
            try ChildProcess.start(check)
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            check.waitUntilExit()
            #expect(check.terminationStatus == 0, "bash -n \(file.lastPathComponent): \(text)")
        }
    }

    /// The manual page generator reads this description; every subcommand and its options must
    /// be in it.
    @Test func theHelpDescriptionForTheManualPageHoldsEveryCommand() async throws {
        let run = await courier("--experimental-dump-help")
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: run.raw) as? [String: Any]
        let command = object?["command"] as? [String: Any]
        #expect(command?["commandName"] as? String == "courier")
        let names = (command?["subcommands"] as? [[String: Any]])?.compactMap { $0["commandName"] as? String } ?? []
        for name in Self.subcommands {
            #expect(names.contains(name), "\(names)")
        }
        let fetch = (command?["subcommands"] as? [[String: Any]])?.first { $0["commandName"] as? String == "fetch" }
        let fetchOptions = (fetch?["arguments"] as? [[String: Any]])?.flatMap { ($0["names"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? [] } ?? []
        #expect(fetchOptions.contains("output") && fetchOptions.contains("include"), "\(fetchOptions)")
    }
}
