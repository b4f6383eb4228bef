import OnairConfig
import OnairFuzzing
import Testing

/// The location check itself: what it accepts and what it reports.
@Suite("Invariants")
struct InvariantTests {
    static let files = ["a.yaml": "title: x\r\nlist: [1, 2]\n", "b.yaml": ""]

    func violations(at file: String, _ line: Int, _ column: Int, message: String = "wrong") -> [Violation] {
        let diagnostic = Diagnostic(.error, "some-rule", message, at: OnairConfig.SourceLocation(file: file, line: line, column: column))
        return Invariant.wordingAndLocation(of: [diagnostic], files: Self.files)
    }

    @Test func aDiagnosticOnACharacterOrJustAfterALineIsLocated() {
        #expect(violations(at: "a.yaml", 1, 1).isEmpty)
        #expect(violations(at: "a.yaml", 1, 9).isEmpty)    // just after "title: x"
        #expect(violations(at: "a.yaml", 2, 13).isEmpty)
        #expect(violations(at: "a.yaml", 3, 1).isEmpty)    // the end of the file, after its last line break
        #expect(violations(at: "b.yaml", 1, 1).isEmpty)    // the start of an empty file
    }

    @Test func aDiagnosticOutsideItsFileIsNotLocated() {
        #expect(violations(at: "a.yaml", 4, 1).map(\.invariant) == [.located])
        #expect(violations(at: "a.yaml", 0, 1).map(\.invariant) == [.located])
        #expect(violations(at: "a.yaml", 1, 10).map(\.invariant) == [.located])
        #expect(violations(at: "a.yaml", 1, 0).map(\.invariant) == [.located])
        #expect(violations(at: "c.yaml", 1, 1).map(\.invariant) == [.located])
    }

    @Test func aDiagnosticWithoutWordsIsReported() {
        #expect(violations(at: "a.yaml", 1, 1, message: "").map(\.invariant) == [.worded])
    }
}
