import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// libavutil's `av_get_token`, which both the graph parser (terminators `[],;`) and the option
/// parser (terminator `:`) use: skips leading whitespace, `\x` is `x`, `'…'` is literal, and
/// unescaped trailing whitespace is dropped. Written from libavutil/avstring.c (FFmpeg 5.1).
func avGetToken(_ text: inout Substring, terminators: String) -> String {
    let whitespace: Set<Character> = [" ", "\n", "\t", "\r"]
    while let first = text.first, whitespace.contains(first) { text.removeFirst() }
    var out: [Character] = []
    var end = 0
    while let c = text.first, !terminators.contains(c) {
        text.removeFirst()
        if c == "\\", let next = text.first {
            text.removeFirst()
            out.append(next)
            end = out.count
        } else if c == "'" {
            while let q = text.first, q != "'" { out.append(q); text.removeFirst() }
            if !text.isEmpty { text.removeFirst(); end = out.count }
        } else {
            out.append(c)
        }
    }
    while out.count > end, let last = out.last, whitespace.contains(last) { out.removeLast() }
    return String(out)
}

/// Parses `name=key=value:key=value` the way libavfilter does: the graph level takes the
/// arguments as one token, then the option level splits them into `key=value` pairs.
func parseFilter(_ description: String) -> (name: String, options: [(String?, String)], rest: String) {
    var text = Substring(description)
    let name = String(text.prefix { $0 != "=" })
    text = text.dropFirst(name.count)
    guard text.first == "=" else { return (name, [], String(text)) }
    text.removeFirst()
    var args = Substring(avGetToken(&text, terminators: "[],;"))
    var options: [(String?, String)] = []
    while !args.isEmpty {
        // A key is [A-Za-z0-9_./-]+ followed by '='; otherwise the value is positional.
        let keyChars = args.prefix { $0.isLetter || $0.isNumber || "_./-".contains($0) }
        var key: String?
        if !keyChars.isEmpty, args.dropFirst(keyChars.count).first == "=" {
            key = String(keyChars)
            args = args.dropFirst(keyChars.count + 1)
        }
        options.append((key, avGetToken(&args, terminators: ":")))
        if args.first == ":" { args.removeFirst() }
    }
    return (name, options, String(text))
}

/// drawtext's own expansion: `\x` is `x`, `%{…}` is a function. Returns nil on a stray `%`.
func drawtextExpand(_ text: String) -> String? {
    var out = ""
    var rest = Substring(text)
    while let c = rest.first {
        rest.removeFirst()
        if c == "\\", let next = rest.first {
            out.append(next)
            rest.removeFirst()
        } else if c == "%" {
            guard rest.first == "{" else { return nil }
            out += "<function>"
            rest = rest.drop { $0 != "}" }.dropFirst()
        } else {
            out.append(c)
        }
    }
    return out
}

private let awkwardValues = [
    "a:b", "it's", "1,2", "[in]", "[out]", "a;b", #"C:\fonts\x.ttf"#, " leading", "trailing ", "  both  ",
    "=", #"all :',[];\ of them"#, "plain", "0x00FF00@0.5", "(W-w)/2",
]

@Suite struct FilterEscapingTests {
    @Test func optionLevelEscapesItsSpecials() {
        #expect(FilterEscaping.optionLevel("a:b") == #"a\:b"#)
        #expect(FilterEscaping.optionLevel("k=v") == #"k\=v"#)
        #expect(FilterEscaping.optionLevel("it's") == #"it\'s"#)
        #expect(FilterEscaping.optionLevel(#"a\b"#) == #"a\\b"#)
        #expect(FilterEscaping.optionLevel(" x ") == #"\ x\ "#)
        // Graph-level characters are left to the graph level.
        #expect(FilterEscaping.optionLevel("[a],b;c") == "[a],b;c")
    }

    @Test func graphLevelEscapesItsSpecials() {
        #expect(FilterEscaping.graphLevel("[in]") == #"\[in\]"#)
        #expect(FilterEscaping.graphLevel("1,2;3") == #"1\,2\;3"#)
        #expect(FilterEscaping.graphLevel("it's") == #"it\'s"#)
        #expect(FilterEscaping.graphLevel(#"a\b"#) == #"a\\b"#)
        #expect(FilterEscaping.graphLevel(" x ") == #"\ x\ "#)
        // Option-level characters are left to the option level.
        #expect(FilterEscaping.graphLevel("a:b=c") == "a:b=c")
    }

    @Test func bothLevelsCompose() {
        #expect(FilterEscaping.graphLevel(FilterEscaping.optionLevel("a:b")) == #"a\\:b"#)
        #expect(FilterEscaping.graphLevel(FilterEscaping.optionLevel("it's")) == #"it\\\'s"#)
        #expect(FilterEscaping.graphLevel(FilterEscaping.optionLevel(#"a\b"#)) == #"a\\\\b"#)
        #expect(FilterEscaping.graphLevel(FilterEscaping.optionLevel("[x],y;")) == #"\[x\]\,y\;"#)
        #expect(Filter("drawtext", [FilterOption("text", "a:b, [c]")], purpose: "t").description == #"drawtext=text=a\\:b\, \[c\]"#)
        #expect(Filter("drawtext", [FilterOption("text", " x ")], purpose: "t").description == #"drawtext=text=\\ x\\\ "#)
    }

    @Test(arguments: awkwardValues)
    func valueSurvivesBothParsersUnchanged(value: String) {
        // The value first and last (where libav trims whitespace), and between two plain options.
        let filter = Filter("drawtext", [FilterOption("text", value), FilterOption("x", "1"), FilterOption("y", value)], purpose: "t")
        let parsed = parseFilter(filter.description)
        #expect(parsed.name == "drawtext")
        #expect(parsed.rest.isEmpty, "the graph parser stopped early at '\(parsed.rest)'")
        #expect(parsed.options.map(\.0) == ["text", "x", "y"])
        #expect(parsed.options.map(\.1) == [value, "1", value], "\(filter.description)")

        let positional = Filter("format", [FilterOption(nil, value)], purpose: "t")
        let parsedPositional = parseFilter(positional.description)
        #expect(parsedPositional.options.map(\.1) == [value], "\(positional.description)")
    }

    @Test func chainOfEscapedFiltersSplitsOnlyAtRealSeparators() {
        let chain = FilterChain([.input(0, .video)], [
            Filter("drawtext", [FilterOption("text", "a,b;c[d]")], purpose: "t"),
            Filter("scale", [FilterOption("w", "1280"), FilterOption("h", "-2")], purpose: "t"),
        ], [.link("out")])
        #expect(chain.description == #"[0:v]drawtext=text=a\,b\;c\[d\],scale=w=1280:h=-2[out]"#)
        var text = Substring(chain.description.dropFirst("[0:v]drawtext=".count))
        #expect(avGetToken(&text, terminators: "[],;") == "text=a,b;c[d]")
        #expect(text.hasPrefix(",scale="))
    }

    @Test func drawtextLiteralEscapesPercentAndBackslash() {
        #expect(FilterEscaping.drawtextLiteral("100%") == #"100\%"#)
        #expect(FilterEscaping.drawtextLiteral(#"C:\show"#) == #"C:\\show"#)
        #expect(FilterEscaping.drawtextLiteral("%{localtime}") == #"\%{localtime}"#)
        #expect(FilterEscaping.drawtextLiteral("plain: 'text', [1]") == "plain: 'text', [1]")
        for text in ["100% live", #"back\slash"#, "%{pts}", "% %% \\", "{title}"] {
            let literal = FilterEscaping.drawtextLiteral(text)
            #expect(drawtextExpand(literal) == text, "drawtext would expand \(literal)")
            // And through both parsers too.
            let parsed = parseFilter(Filter("drawtext", [FilterOption("text", literal)], purpose: "t").description)
            #expect(parsed.options.first.map { drawtextExpand($0.1) } == text)
        }
        #expect(drawtextExpand("100%") == nil, "the model rejects a stray % as drawtext does")
    }

    /// A text layer's title and literal text, with every character that means something to one
    /// of the three parsers, reach the picture unchanged; {clock} stays a drawtext function.
    @Test func textLayerSurvivesAllThreeParsers() throws {
        let project = try ScratchProject()
        defer { project.remove() }
        try project.pipeline(#"""
            title: "100% live: it's [on], \\o/ ;-)"
            sources:
              camera: {kind: test, size: 1280x720}
            overlays:
              room: {kind: real-scene, camera: camera}
            active: room
            layers:
              - {kind: text, text: "{title} = {pipeline}; 50%, {clock}", position: top-left}
            quality: {width: 1280, height: 720, fps: 30, video: {bitrate: 3000k, profile: main}}
            destinations:
              archive: {kind: record, path: ../recordings/show.mkv}

            """#)
        let outcome = project.plan()
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        let drawtext = try #require(outcome.plan?.graph.filtersInOrder.first { $0.name == "drawtext" })
        let parsed = parseFilter(drawtext.description)
        #expect(parsed.rest.isEmpty, "\(drawtext.description)")
        let text = try #require(parsed.options.first { $0.0 == "text" }?.1)
        #expect(drawtextExpand(text) == #"100% live: it's [on], \o/ ;-) = show; 50%, <function>"#, "\(drawtext.description)")
        #expect(text.hasSuffix("%{localtime:%H\\:%M\\:%S}"), "the clock reaches drawtext as a function: \(text)")
    }
}
