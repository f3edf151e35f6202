import Testing

@testable import courier

/// `courier demo` is the README's first command: every step must run to its end.
@Suite("courier demo")
struct DemoCommandTests {
    @Test func everyStepRunsAndTheDemoEndsWithStatus0() async {
        let run = await courier("demo")
        #expect(run.status == 0, "\(run.stdout.suffix(1500))\n\(run.stderr)")
        #expect(run.stdout.contains("Demo finished: every step ran"))
        // The resumed download, the step that a retry rule of its own once broke.
        #expect(run.stdout.contains("4194304 bytes in 3 attempts"), "\(run.stdout)")
    }
}
