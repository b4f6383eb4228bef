import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// Every way a file can be broken must end in one located error, in bounded time, never a crash.
/// The time limit is a hang guard (an alias bomb expanding, a scan reading 50 MB): the slowest
/// tests, which build 50 MB of text, take under 10 s in a debug build on a busy 2-core machine.
@Suite("Hostile input", .timeLimit(.minutes(2)))
struct HostileInputTests {
    /// "Billion laughs": ten levels of nine aliases each would expand to 9^10 nodes.
    static func aliasBomb(levels: Int = 9) -> [String] {
        var lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...levels {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]")
        }
        return lines
    }

    @Test func aliasBombIsCutOffByTheNodeLimit() throws {
        let text = Self.aliasBomb().joined(separator: "\n") + "\n"
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-too-large")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "document expands to more than 200000 nodes (aliases expanding exponentially?)")
        #expect(diagnostic.suggestion == "remove the repeated aliases; onair configurations are small")
        // The node that crossed the limit is a copy of the ninth 'lol' of the innermost anchor.
        #expect(diagnostic.location == at(1, 50, "test.yaml"))
    }

    @Test func aliasBombInAPipelineIsTheOnlyProblemReported() throws {
        let project = try Fixtures.project(pipeline: Self.aliasBomb().joined(separator: "\n") + "\n")
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["yaml-too-large"], "\(loaded.dump)")
        #expect(loaded.project.pipelines.isEmpty)
        #expect(loaded.project.pipelineNames == ["show"])
    }

    /// Yams hashes every mapping key to find duplicates, so a key made of an alias bomb would
    /// take exponential time before the node limit is ever reached.
    @Test(arguments: [
        ("? *a9\n: x\n", 11, 3, "aliases"),
        ("[*a9]: x\n", 11, 1, "lists"),
        ("{*a9: 1}: x\n", 11, 1, "mappings"),
        ("*a9 : x\n", 11, 1, "aliases"),
        ("list:\n  - ? *a9\n    : x\n", 12, 7, "aliases"),
    ])
    func aliasBombAsAMappingKeyIsRefusedBeforeExpansion(key: String, line: Int, column: Int, shape: String) throws {
        let text = Self.aliasBomb().joined(separator: "\n") + "\n" + key
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "complex-key")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "mapping keys must be plain names, not \(shape)")
        #expect(diagnostic.location == at(line, column, "test.yaml"))
    }

    /// Two equal keys made of the bomb: the duplicate check itself must not expand them.
    @Test func duplicatedAliasBombKeysAreRefusedBeforeExpansion() throws {
        let text = Self.aliasBomb().joined(separator: "\n") + "\n[*a9]: x\n[*a9]: y\n"
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.map(\.code) == ["duplicate-key"])
        #expect(diagnostics.first?.location == at(11, 1, "test.yaml"))
    }

    @Test func harmlessAliasesStillWork() throws {
        let (node, diagnostics) = loadYAML(text: "base: &base {color: \"#00FF00\"}\ncopy: *base\n")
        #expect(diagnostics.isEmpty)
        let copy = try #require(node?["copy"])
        #expect(copy["color"]?.scalar == "#00FF00")
    }

    /// A 50 MB file is refused from its size alone: the message gives the size.
    @Test func fiftyMegabyteFileIsRefusedBySize() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        let url = project.file("huge.yaml")
        let line = "key: " + String(repeating: "v", count: 58) + "\n"
        #expect(line.utf8.count == 64)
        let chunk = Data(String(repeating: line, count: 16_384).utf8)  // exactly 1 MiB
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        for _ in 0..<50 { try handle.write(contentsOf: chunk) }
        try handle.close()

        let log = DiagnosticLog()
        let node = YAMLLoader().load(contentsOf: url, displayPath: "huge.yaml", into: log)
        #expect(node == nil)
        #expect(log.all.count == 1)
        let diagnostic = try #require(log.all.first)
        #expect(diagnostic.code == "file-too-large")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == at(1, 1, "huge.yaml"))
        #expect(diagnostic.message == "file is 50 MiB; configuration files are limited to 1 MiB")
        #expect(diagnostic.suggestion == "check that this is the file you meant; split large configurations into presets")
    }

    @Test func oversizedPipelineFileInAProjectIsOneErrorAndNotQuoted() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline)
        defer { project.remove() }
        let line = "# padding padding padding padding padding padding padding paddi\n"
        #expect(line.utf8.count == 64)
        try project.write("Pipelines/huge.yaml", String(repeating: line, count: 32_768))  // 2 MiB
        let loaded = project.load()
        #expect(loaded.codes == ["file-too-large"], "\(loaded.dump)")
        #expect(loaded.diagnostics.first?.location == at(1, 1, "Pipelines/huge.yaml"))
        #expect(loaded.diagnostics.first?.message == "file is 2 MiB; configuration files are limited to 1 MiB")
        #expect(loaded.project.files["Pipelines/huge.yaml"] == nil)
        #expect(loaded.project.pipelineNames == ["huge", "show"])
        #expect(loaded.project.pipelines.map(\.name) == ["show"])
    }

    @Test func oversizedDataIsRefused() throws {
        let data = Data(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1)
        let (node, diagnostics) = loadYAML(data: data)
        #expect(node == nil)
        #expect(diagnostics.map(\.code) == ["file-too-large"])
        #expect(diagnostics.first?.message == "file is 1 MiB; configuration files are limited to 1 MiB")
    }

    @Test func binaryGarbageIsReportedAtItsFirstNulByte() throws {
        // The start of a PNG file: 0x89, "PNG", CR LF, 0x1A, LF, then NUL bytes.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52]
        let (node, diagnostics) = loadYAML(data: Data(png + [UInt8](repeating: 0xFF, count: 100)))
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "binary-file")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.location == at(3, 1, "test.yaml"))
        #expect(diagnostic.suggestion == "configuration files are UTF-8 text")
    }

    @Test func nulByteInsideTextIsLocated() throws {
        let (node, diagnostics) = loadYAML(data: Data("title: ok\nsources: caf\u{E9}\0x\n".utf8))
        #expect(node == nil)
        #expect(diagnostics.map(\.code) == ["binary-file"])
        // "sources: café" is 13 characters (é is two bytes): the NUL is column 14.
        #expect(diagnostics.first?.location == at(2, 14, "test.yaml"))
    }

    /// Bytes that are not UTF-8, with the line and column of the first bad byte.
    static let invalidUTF8: [(bytes: [UInt8], line: Int, column: Int)] = [
        (Array("title: café ".utf8) + [0xFF], 1, 13),                 // a byte that never appears in UTF-8
        (Array("a: 1\nb: 2\nc: ".utf8) + [0x80], 3, 4),               // a lone continuation byte
        (Array("a: 1\nb: x".utf8) + [0xE2, 0x82], 2, 5),              // a truncated sequence at the end
        (Array("name: ".utf8) + [0xC0, 0xAF, 0x41], 1, 7),            // an overlong encoding of '/'
        (Array("k: \u{1F600} ".utf8) + [0xED, 0xA0, 0x80], 1, 6),     // an encoded UTF-16 surrogate
        (Array("a: 1\r\nb: ".utf8) + [0xE9, 0x74, 0xE9], 2, 4),       // Latin-1 "été" in a CRLF file
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8IsLocatedAtTheBadByte(bytes: [UInt8], line: Int, column: Int) throws {
        let (node, diagnostics) = loadYAML(data: Data(bytes))
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "invalid-utf8")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "file is not valid UTF-8")
        #expect(diagnostic.suggestion == "save the file as UTF-8")
        #expect(diagnostic.location == at(line, column, "test.yaml"))
    }

    @Test func tenThousandDeepFlowNesting() throws {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-too-deep")
        #expect(diagnostic.message == "nesting deeper than 64 levels")
        #expect(diagnostic.location == at(1, 65, "test.yaml"))
    }

    @Test func tenThousandDeepFlowMappingsUnderAKey() throws {
        let text = "title: x\nsources:\n  cam: " + String(repeating: "{a: ", count: 10_000) + "1" + String(repeating: "}", count: 10_000) + "\n"
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.map(\.code) == ["yaml-too-deep"])
        // "  cam: " is 7 columns; every level adds 4 ("{a: "), so the 65th brace is at 8 + 64 × 4.
        #expect(diagnostics.first?.location == at(3, 264, "test.yaml"))
    }

    @Test func deepFlowNestingInACRLFFileIsLocatedOnItsLine() throws {
        // 2,000 levels: beyond libyaml's own limit of 1,000, so only the scan can report it well.
        let text = "# a comment\r\ntitle: x\r\nitems: " + String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000) + "\r\n"
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.map(\.code) == ["yaml-too-deep"])
        #expect(diagnostics.first?.location == at(3, 72, "test.yaml"))
    }

    /// Ten thousand mappings, each indented one column more than its parent (about 50 MB of text,
    /// so it can only arrive as text: a file that size is refused by its size first). Loading
    /// stops at the first line indented too far, without reading the rest.
    @Test func tenThousandDeepBlockNesting() throws {
        var text = ""
        text.reserveCapacity(50_100_000)
        for level in 0..<10_000 { text += String(repeating: " ", count: level) + "a:\n" }
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-too-deep")
        #expect(diagnostic.message == "indentation of 513 columns: nesting too deep")
        #expect(diagnostic.location == at(514, 514, "test.yaml"))
    }

    @Test func tenThousandDeepBlockNestingOnDiskIsRefusedBySize() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        var text = ""
        for level in 0..<10_000 { text += String(repeating: " ", count: level) + "a:\n" }
        try project.write("deep.yaml", text)
        let log = DiagnosticLog()
        let node = YAMLLoader().load(contentsOf: project.file("deep.yaml"), displayPath: "deep.yaml", into: log)
        #expect(node == nil)
        #expect(log.all.map(\.code) == ["file-too-large"])
        #expect(log.all.first?.message == "file is 47 MiB; configuration files are limited to 1 MiB")
    }

    /// A hundred levels indented two columns each passes the cheap indentation scan; the
    /// composer's depth check catches it at the 65th level.
    @Test func hundredDeepBlockNestingIsCaughtByTheComposer() throws {
        var text = ""
        for level in 0..<100 { text += String(repeating: "  ", count: level) + "a:\n" }
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-too-deep")
        #expect(diagnostic.message == "nesting deeper than 64 levels")
        // The mapping at depth 65 starts with the key on line 66, indented 130 columns.
        #expect(diagnostic.location == at(66, 131, "test.yaml"))
    }

    @Test func tenThousandDeepBlockSequencesOnOneLine() throws {
        let (node, diagnostics) = loadYAML(text: String(repeating: "- ", count: 10_000) + "x\n")
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.code == "yaml-syntax")
        #expect(diagnostics.first?.location.line == 1)
    }
}

/// Documents that are well-formed text but not acceptable YAML for onair.
@Suite("YAML structure")
struct YAMLStructureTests {
    @Test(arguments: [
        ("title: a: b\n", 1, 9, "YAML syntax error: mapping values are not allowed in this context",
         "quote values that contain ': ' or check the indentation of this line"),
        ("sources:\n  cam: {kind: test\nactive: room\n", 3, 7,
         "YAML syntax error: did not find expected ',' or '}' while parsing a flow mapping", nil),
        ("title: x\n---\ntitle: y\n", 2, 1, "YAML syntax error: but found another document expected a single document in the stream", nil),
        ("sources:\n  camera: *nowhere\n", 2, 11, "YAML syntax error: found undefined alias", nil),
        ("a: 1\r\nb: [\r\n", 3, 1, "YAML syntax error: did not find expected node content while parsing a flow node", nil),
    ] as [(String, Int, Int, String, String?)])
    func syntaxErrorsAreLocated(text: String, line: Int, column: Int, message: String, suggestion: String?) throws {
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-syntax")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == message)
        #expect(diagnostic.suggestion == suggestion)
        #expect(diagnostic.location == at(line, column, "test.yaml"))
    }

    @Test(arguments: [
        ("sources:\n\tcamera: {kind: test}\n", 2, 1),
        ("sources:\n  camera:\n  \tkind: test\n", 3, 3),
    ])
    func tabIndentationIsLocatedWithAHint(text: String, line: Int, column: Int) throws {
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "yaml-syntax")
        #expect(diagnostic.location == at(line, column, "test.yaml"))
        #expect(diagnostic.suggestion == "indent with spaces, not tabs")
    }

    @Test(arguments: [
        // top level, block style
        ("title: a\nsources: {}\ntitle: b\n", "title", 3, 1, 1),
        // nested block mapping
        ("sources:\n  camera:\n    kind: test\n    size: 1280x720\n    kind: file\n", "kind", 5, 5, 3),
        // a mapping inside a list item
        ("layers:\n  - kind: text\n    text: hi\n    text: again\n", "text", 4, 5, 3),
        // quoted duplicate
        ("title: a\n\"title\": b\n", "title", 2, 1, 1),
        // flow mapping on one line
        ("sources:\n  camera: {kind: test, size: 1280x720, kind: file}\n", "kind", 2, 40, 2),
        // flow mapping with a nested one, and a quoted value that looks like an entry
        ("x: {a: {a: 1}, a: 2}\n", "a", 1, 16, 1),
        ("x: {a: \"b, a: c\", a: d}\n", "a", 1, 19, 1),
        // CRLF line ends
        ("a: 1\r\nb: 2\r\na: 3\r\n", "a", 3, 1, 1),
    ])
    func duplicateKeyPointsAtTheSecondOne(text: String, key: String, line: Int, column: Int, firstLine: Int) throws {
        let (node, diagnostics) = loadYAML(text: text)
        #expect(node == nil)
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "duplicate-key")
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.message == "duplicate key '\(key)' — the first is at line \(firstLine)")
        #expect(diagnostic.suggestion == "remove or rename one of them")
        #expect(diagnostic.location == at(line, column, "test.yaml"))
    }

    @Test func mergeKeysAreRefusedWithAHint() throws {
        let (node, diagnostics) = loadYAML(text: "base: &base {kind: test}\ncamera:\n  <<: *base\n  size: 1280x720\n")
        #expect(diagnostics.count == 1)
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.code == "merge-key")
        #expect(diagnostic.location == at(3, 3, "test.yaml"))
        #expect(diagnostic.suggestion == "use `extends:` to build on a preset")
        // The rest of the mapping is kept.
        #expect(node?["camera"]?.entries?.map(\.key) == ["size"])
    }

    @Test func complexKeysAreRefused() throws {
        let (_, diagnostics) = loadYAML(text: "title: x\n[a, b]: 1\n{c: d}: 2\n")
        #expect(diagnostics.map(\.code) == ["complex-key", "complex-key"])
        #expect(diagnostics.map(\.location) == [at(2, 1, "test.yaml"), at(3, 1, "test.yaml")])
        #expect(diagnostics.map(\.message) == ["mapping keys must be plain names, not lists", "mapping keys must be plain names, not mappings"])
    }

    @Test func emptyDocumentIsAnEmptyMapping() throws {
        let (node, diagnostics) = loadYAML(text: "# nothing but a comment\n")
        #expect(diagnostics.isEmpty)
        #expect(node?.entries?.isEmpty == true)
    }

    @Test func scalarsStayTextWithLocations() throws {
        let (node, diagnostics) = loadYAML(text: "octal: 010\nhex: 0x10\nfloat: 1e3\nbool: yes\nquoted: \"yes\"\n")
        #expect(diagnostics.isEmpty)
        let root = try #require(node)
        #expect(root["octal"]?.scalar == "010")
        #expect(root["hex"]?.scalar == "0x10")
        #expect(root["float"]?.scalar == "1e3")
        #expect(root["bool"]?.content == .scalar("yes", plain: true))
        #expect(root["quoted"]?.content == .scalar("yes", plain: false))
        #expect(root["quoted"]?.location == at(5, 9, "test.yaml"))
        #expect(root.entries?[4].keyLocation == at(5, 1, "test.yaml"))
    }
}
