import OnairFuzzing
import Testing

@Suite("Fuzz dictionary")
struct FuzzDictionaryTests {
    /// Keys, kinds, choices, units, range bounds, platforms, placeholders and URL forms all come
    /// from the schema and the catalogue.
    @Test(arguments: [
        "keyframe_interval:", "auto_lighting:", "platforms:", "real-scene", "scene-avatar", "zerolatency", "bottom-left",
        "6000k", "500ms", "1280x720", "\"9:16\"", "unlimited", "7681", "youtube", "tiktok", "{title}", "{key}", "srt://",
    ])
    func holds(word: String) {
        #expect(FuzzDictionary.words.contains(word))
    }

    @Test func everyLineIsOneQuotedWordOrAComment() {
        let lines = FuzzDictionary.text.split(separator: "\n")
        #expect(lines.count == FuzzDictionary.words.count + 1)
        for line in lines where !line.hasPrefix("#") {
            #expect(line.hasPrefix("\"") && line.hasSuffix("\"") && line.count >= 3, "\(line)")
            #expect(line.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(line)")
        }
    }
}
