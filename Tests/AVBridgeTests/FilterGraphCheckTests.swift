import AVBridge
import Foundation
import Testing

/// Declarations shared by the tests: two cameras, one microphone.
private let camera = GraphInput("0:v", .video(width: 1280, height: 720, frameRate: 30))
private let greenScreen = GraphInput("1:v", .video(width: 1920, height: 1080, frameRate: FrameRate(30000, 1001), pixelFormat: "rgba"))
private let microphone = GraphInput("2:a", .audio(sampleRate: 44100, channels: 2))
private let videoOut = GraphOutput("v0", .video)

/// The failure of `check`, or a recorded issue when it unexpectedly succeeded.
private func expectFailure(
    _ check: FilterGraphCheck, sourceLocation: SourceLocation = #_sourceLocation
) -> FilterGraphFailure? {
    switch check.run() {
    case let .success(summary):
        Issue.record("expected a failure, got \(summary)", sourceLocation: sourceLocation)
        return nil
    case let .failure(failure):
        return failure
    }
}

/// The summary of `check`, or a recorded issue (with libav's lines) when it failed.
private func expectSuccess(
    _ check: FilterGraphCheck, sourceLocation: SourceLocation = #_sourceLocation
) -> FilterGraphSummary? {
    switch check.run() {
    case let .success(summary):
        return summary
    case let .failure(failure):
        Issue.record("expected success, got \(failure)", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite struct FilterGraphCheckTests {
    @Test func keyedOverlayAndAudioChainConfigure() throws {
        let check = FilterGraphCheck(
            "[1:v]scale=640:360,chromakey=color=0x00FF00:similarity=0.12:blend=0.05[key];"
                + "[0:v][key]overlay=x=W-w-20:y=20[v0];"
                + "[2:a]aresample=48000,asplit=2[a0][a1]",
            inputs: [camera, greenScreen, microphone],
            outputs: [videoOut, GraphOutput("a0", .audio), GraphOutput("a1", .audio)])
        let summary = try #require(expectSuccess( check))
        #expect(summary.filters.map(\.instanceName) == [
            "Parsed_scale_0", "Parsed_chromakey_1", "Parsed_overlay_2", "Parsed_aresample_3", "Parsed_asplit_4",
        ])
        #expect(summary.unusedInputs.isEmpty)
    }

    /// The N in Parsed_<name>_N is the filter's position in the whole description, counted
    /// from 0 over every chain (`,` and `;` alike) — taken from libav's own instance names.
    @Test func filterIndicesCountEveryFilterOfEveryChainFromZero() throws {
        let check = FilterGraphCheck(
            "[0:v]split[a][b];[a]scale=320:180[a1];[b]hflip,vflip,scale=320:180[b1];[a1][b1]hstack[v0];[2:a]anull[a0]",
            inputs: [camera, microphone],
            outputs: [videoOut, GraphOutput("a0", .audio)])
        let summary = try #require(expectSuccess( check))
        #expect(summary.filters == [
            FilterInstance(filterName: "split", index: 0),
            FilterInstance(filterName: "scale", index: 1),
            FilterInstance(filterName: "hflip", index: 2),
            FilterInstance(filterName: "vflip", index: 3),
            FilterInstance(filterName: "scale", index: 4),
            FilterInstance(filterName: "hstack", index: 5),
            FilterInstance(filterName: "anull", index: 6),
        ])
        #expect(summary.filters.map(\.instanceName).contains("Parsed_hstack_5"))
    }

    @Test func unknownFilterFailsWithLibavMessageAndPosition() throws {
        let check = FilterGraphCheck("[0:v]scale=640:360,nosuchfilter[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .parsing)
        #expect(failure.error?.function == "avfilter_graph_parse2")
        #expect(failure.error?.code == .invalidArgument)
        #expect(failure.errors.contains { $0.message.contains("No such filter: 'nosuchfilter'") })
        #expect(failure.filter == FilterInstance(filterName: "nosuchfilter", index: 1))
        #expect(failure.description.contains("No such filter"))
    }

    @Test func badOptionValueNamesTheFilterInstance() throws {
        let check = FilterGraphCheck("[0:v]null,scale=w=abc:h=100[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .parsing)
        #expect(failure.error?.code == .invalidArgument)
        #expect(failure.filter == FilterInstance(filterName: "scale", index: 1))
        #expect(failure.filter?.instanceName == "Parsed_scale_1")
        // libav's own words, from the expression evaluator that the scale instance owns.
        let evalLine = try #require(failure.log.first { $0.message.contains("'abc'") && $0.context == "Eval" })
        #expect(evalLine.level == .error)
        #expect(evalLine.parentContext == "Parsed_scale_1")
        #expect(failure.log.contains { $0.message == "Cannot parse expression for width: 'abc'" && $0.context == "Parsed_scale_1" })
        #expect(failure.log.contains { $0.message == "Error initializing filter 'scale' with args 'w=abc:h=100'" })
    }

    @Test func unknownOptionNameFailsWithOptionNotFound() throws {
        let check = FilterGraphCheck("[0:v]scale=640:360,hflip,vflip=foo=1[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.error?.code == .optionNotFound)
        #expect(failure.errors.contains { $0.message == "Option 'foo' not found" && $0.context == "Parsed_vflip_2" })
        #expect(failure.filter == FilterInstance(filterName: "vflip", index: 2))
    }

    @Test func namedInstanceKeepsItsNameAndIndex() throws {
        let check = FilterGraphCheck("[0:v]hflip,scale@logo=w=abc[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.filter == FilterInstance(filterName: "scale", index: 1, instanceName: "scale@logo"))
    }

    @Test func optionCheckedOnlyAtConfigurationNamesTheFilter() throws {
        let check = FilterGraphCheck("[0:v]scale=320:180,crop=w=2000:h=100[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .configuration)
        #expect(failure.error?.function == "avfilter_graph_config")
        #expect(failure.filter == FilterInstance(filterName: "crop", index: 1))
        #expect(failure.filters.count == 2)
    }

    @Test func drawtextWithSystemFontConfigures() throws {
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        try #require(FileManager.default.fileExists(atPath: font), "install fonts-dejavu-core")
        let check = FilterGraphCheck(
            "[0:v]scale=640:360,drawtext=fontfile=\(font):text='ON AIR':x=20:y=20:fontsize=36:fontcolor=white:box=1:boxcolor=black@0.5[v0]",
            inputs: [camera], outputs: [videoOut])
        let summary = try #require(expectSuccess( check))
        #expect(summary.filters.last == FilterInstance(filterName: "drawtext", index: 1))
    }

    @Test func drawtextWithBadColourFailsAtItsIndex() throws {
        let check = FilterGraphCheck(
            "[0:v]scale=640:360,hflip,drawtext=text=x:fontcolor=notacolour[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.filter == FilterInstance(filterName: "drawtext", index: 2))
        #expect(failure.errors.contains { $0.context == "Parsed_drawtext_2" })
    }

    @Test func undeclaredInputLabelIsReported() throws {
        let check = FilterGraphCheck("[0:v][3:v]overlay[v0]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .linking)
        #expect(failure.issues == [.undeclaredInput(label: "3:v", consumer: FilterInstance(filterName: "overlay", index: 0))])
        #expect(failure.description.contains("[3:v]"))
    }

    @Test func declaredOutputNeverProducedIsReported() throws {
        let check = FilterGraphCheck(
            "[0:v]scale=640:360[v0]", inputs: [camera, microphone], outputs: [videoOut, GraphOutput("a0", .audio)])
        let failure = try #require(expectFailure( check))
        #expect(failure.issues == [.missingOutput(label: "a0")])
        #expect(failure.unusedInputs == ["2:a"])
    }

    @Test func unlabelledAndUndeclaredPadsAreReported() throws {
        let check = FilterGraphCheck("[0:v]split=3[v0][extra],hstack[v1]", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(Set(failure.issues) == [
            .unlabelledInput(consumer: FilterInstance(filterName: "hstack", index: 1)),
            .undeclaredOutput(label: "extra", producer: FilterInstance(filterName: "split", index: 0)),
            .undeclaredOutput(label: "v1", producer: FilterInstance(filterName: "hstack", index: 1)),
        ])
    }

    @Test func mediaKindMismatchIsReported() throws {
        let check = FilterGraphCheck("[2:a]scale=640:360[v0]", inputs: [microphone], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.issues == [
            .mediaMismatch(label: "2:a", declared: .audio, actual: .video, filter: FilterInstance(filterName: "scale", index: 0)),
        ])
    }

    @Test func invalidDeclarationsAreReportedBeforeLibavRuns() throws {
        let check = FilterGraphCheck(
            "[0:v]null[v0]",
            inputs: [GraphInput("[0:v]", .video(width: 0, height: 720, frameRate: 30, pixelFormat: "nosuchpixfmt")), camera],
            outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .declaration)
        #expect(failure.issues.contains(.duplicateDeclaration(label: "0:v")))
        #expect(failure.issues.contains(.invalidDeclaration(label: "0:v", reason: "unknown pixel format 'nosuchpixfmt'")))
        #expect(failure.issues.count == 3)
    }

    @Test func inputReadTwiceGetsASourceEachLikeFfmpeg() throws {
        let check = FilterGraphCheck(
            "[0:v]scale=320:180[a];[0:v]scale=320:180,hflip[b];[a][b]hstack[v0]", inputs: [camera], outputs: [videoOut])
        #expect(expectSuccess(check) != nil)
    }

    @Test func syntaxErrorIsAParsingFailure() throws {
        let check = FilterGraphCheck("[0:v]scale=320:180[v0", inputs: [camera], outputs: [videoOut])
        let failure = try #require(expectFailure( check))
        #expect(failure.stage == .parsing)
        #expect(failure.errors.contains { $0.message.contains("Mismatched '['") })
    }

    /// Each check collects only the lines logged on its own thread.
    @Test func concurrentChecksKeepTheirOwnLines() async throws {
        let results = await withTaskGroup(of: (Int, FilterGraphFailure?).self) { group in
            for n in 0..<8 {
                group.addTask {
                    let check = FilterGraphCheck(
                        "[0:v]null,vflip=bad\(n)=1[v0]", inputs: [camera], outputs: [videoOut])
                    if case let .failure(failure) = check.run() { return (n, failure) }
                    return (n, nil)
                }
            }
            var all: [(Int, FilterGraphFailure?)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        for (n, failure) in results {
            let failure = try #require(failure)
            let options = failure.log.filter { $0.message.hasPrefix("Option 'bad") }
            #expect(options.map(\.message) == ["Option 'bad\(n)' not found"])
        }
    }
}
