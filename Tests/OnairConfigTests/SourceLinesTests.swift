import Foundation
import Testing
@testable import OnairConfig

/// `sourceLines` splits a text with only LF line breaks byte by byte and any other Character by
/// Character: both ways give the same lines.
@Suite("Source lines")
struct SourceLinesTests {
    static let texts = [
        "", "\n", "\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "key: value\n  - item\n",
        "a\r\nb", "a\rb\n", "a\r\n\r\n", "x\u{85}y", "x\u{2028}y\u{2029}z", "é\n\u{301}z\n", "tab\there\u{B}vt\u{C}ff\n",
        "€ 5\nnext", "\u{1F600}\n\u{1F1EB}\u{1F1F7}\nend", "\n\u{301}", "line\u{0}nul\n",
    ]

    @Test(arguments: texts)
    func bothWaysGiveTheSameLines(text: String) {
        #expect(text.sourceLines == text.linesByCharacter, "\(text.debugDescription)")
        let inner = Substring("<" + text + ">").dropFirst().dropLast()
        #expect(inner.sourceLines == inner.linesByCharacter, "\(text.debugDescription) as a substring")
    }

    @Test func lineFeedsAloneSplitAtEachOne() {
        #expect("a\n\nb\n".sourceLines == ["a", "", "b", ""])
        #expect("a\r\nb\rc".sourceLines == ["a", "b", "c"])
    }
}
