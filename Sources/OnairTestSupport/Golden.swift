import Foundation
import Testing

/// Compares `actual` with the reviewed copy `Golden/NAME` in the folder of the test file that
/// calls it (a golden file ends with a newline; one is added to `actual` when it has none).
///
/// On a mismatch it records the first differing line and writes both texts to a temporary
/// folder, with the `diff` command to compare them. With `ONAIR_UPDATE_GOLDEN=1` it rewrites the
/// golden in the source tree instead (and records that it did, so such a run never passes):
///
///     ONAIR_UPDATE_GOLDEN=1 swift test --filter GoldenTests
///     git diff Tests/
public func expectGolden(_ actual: String, named name: String, filePath: String = #filePath,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
    let file = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
    let text = actual.hasSuffix("\n") ? actual : actual + "\n"
    if ProcessInfo.processInfo.environment["ONAIR_UPDATE_GOLDEN"] == "1" {
        try Data(text.utf8).write(to: file)
        Issue.record("rewrote Golden/\(name) from the current output: review it with git diff, then run the tests without ONAIR_UPDATE_GOLDEN",
                     sourceLocation: sourceLocation)
        return
    }
    let stored = try #require(try? String(contentsOf: file, encoding: .utf8),
                              "Golden/\(name) is missing; create it with ONAIR_UPDATE_GOLDEN=1", sourceLocation: sourceLocation)
    guard text != stored else { return }

    let actualLines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let storedLines = stored.split(separator: "\n", omittingEmptySubsequences: false)
    let first = zip(actualLines, storedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actualLines.count, storedLines.count)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("onair-golden-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let storedCopy = folder.appendingPathComponent("golden-" + name), actualCopy = folder.appendingPathComponent("actual-" + name)
    try? Data(stored.utf8).write(to: storedCopy)
    try? Data(text.utf8).write(to: actualCopy)
    Issue.record("""
        Golden/\(name) differs at line \(first + 1):
          golden: \(first < storedLines.count ? String(storedLines[first]) : "<end of file>")
          actual: \(first < actualLines.count ? String(actualLines[first]) : "<end of output>")
        See the whole difference with:
          diff -u \(storedCopy.path) \(actualCopy.path)
        If the change is intended, rewrite it with ONAIR_UPDATE_GOLDEN=1 swift test --filter <the test> and review git diff.
        """, sourceLocation: sourceLocation)
}
