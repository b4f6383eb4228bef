import Foundation
import OnairTestSupport
import Testing
@testable import OnairConfig

/// `x264_params`: more libx264 options on a quality, in ffmpeg's `-x264-params` form.
@Suite("x264_params")
struct X264OptionsTests {
    /// The test quality preset with `x264_params: PARAMS` on line 11, its value at column 20.
    static func preset(_ params: String) -> String { ValueTests.qualityPreset("x264_params", params) }
    static let written = at(11, 20, "Presets/quality.yaml")

    @Test("well-formed options reach the quality, located")
    func decoded() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/quality.yaml": Self.preset("\"subme=0:cabac=1:deblock=-1,-1\"")])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.diagnostics.isEmpty, "\(loaded.dump)")
        let params = try #require(loaded.project.pipeline("show")?.quality.video.x264Params)
        #expect(params.value == "subme=0:cabac=1:deblock=-1,-1")
        #expect(params.location == Self.written)
    }

    @Test("an item that is not key=value is an error at the value", arguments: ["subme", "subme=0::cabac=1", "=0", "subme="])
    func malformed(_ params: String) throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/quality.yaml": Self.preset("\"\(params)\"")])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-value"], "\(loaded.dump)")
        let diagnostic = try #require(loaded.diagnostics.first)
        #expect(diagnostic.message.hasPrefix("x264_params item '") && diagnostic.message.hasSuffix("' is not key=value"), "\(diagnostic.message)")
        #expect(diagnostic.location == Self.written)
        #expect(diagnostic.suggestion?.contains("key=value joined by ':'") == true)
    }

    @Test("options the quality's own fields decide are refused, naming the field")
    func owned() throws {
        let project = try Fixtures.project(pipeline: Fixtures.validPipeline, extra: ["Presets/quality.yaml": Self.preset("\"keyint=250:subme=0:vbv_maxrate=9000\"")])
        defer { project.remove() }
        let loaded = project.load()
        #expect(loaded.codes == ["unknown-value", "unknown-value"], "\(loaded.dump)")
        let messages = loaded.diagnostics.map(\.message).sorted()
        #expect(messages == ["x264_params can't set 'keyint': the quality's keyframe_interval decides it",
                             "x264_params can't set 'vbv_maxrate': the quality's max_bitrate decides it"], "\(messages)")
        #expect(loaded.diagnostics.allSatisfy { $0.location == Self.written })
        #expect(loaded.project.pipeline("show")?.quality.video.x264Params == nil)
    }

    @Test("the pairs keep x264's ',' inside a value")
    func pairs() throws {
        let pairs = try X264Options.pairs("subme=0:deblock=-1,-1").get()
        #expect(pairs.map(\.key) == ["subme", "deblock"])
        #expect(pairs.map(\.value) == ["0", "-1,-1"])
        #expect(throws: X264Options.FormError(item: "cabac")) { try X264Options.pairs("subme=0:cabac").get() }
    }
}
