import Courier
import Foundation
import Testing

@testable import courier

/// A queue or cache folder that lets other users in is reported on stderr, one line.
@Suite("courier: folders open to other users")
struct PermissionWarningCommandTests {
    @Test func aQueueFolderOpenToOthersIsOneWarningOnStderr() async throws {
        try await withQueuePath { path in
            let folder = (path as NSString).deletingLastPathComponent
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            let list = await courier("queue", "list", "--queue", path)
            #expect(list.status == 0)
            #expect(list.stderr.hasPrefix("courier: warning: The folder \(folder)"))
            #expect(list.stderr.contains("0755"))
            #expect(list.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func aCacheFolderOpenToOthersIsOneWarningOnStderr() async throws {
        try await withQueuePath { path in
            let folder = (path as NSString).deletingLastPathComponent
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            let stats = await courier("cache", "stats", "--cache", folder)
            #expect(stats.status == 0)
            #expect(stats.stderr.hasPrefix("courier: warning: The folder \(folder), which holds a disk cache"))
            #expect(stats.stderr.split(separator: "\n").count == 1)
        }
    }
}
