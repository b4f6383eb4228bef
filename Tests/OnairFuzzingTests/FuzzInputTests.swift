import Foundation
import OnairFuzzing
import OnairPlanner
import Testing

@Suite("Fuzz input")
struct FuzzInputTests {
    @Test(arguments: [
        ("0", FuzzInput.Layout.pipeline, Planner.Mode.validate),
        ("1", .presets, .validate),
        ("2", .pipelineAndPresets, .validate),
        ("3", .pipeline, .run),
        ("4", .presets, .run),
        ("5", .pipelineAndPresets, .run),
        ("6", .pipeline, .validate),
    ])
    func theFirstByteChoosesLayoutAndMode(first: String, layout: FuzzInput.Layout, mode: Planner.Mode) throws {
        let input = try #require(FuzzInput(Data((first + "a: 1").utf8)))
        #expect(input.layout == layout)
        #expect(input.mode == mode)
    }

    @Test func aPairIsSplitAtTheFirstFormFeed() throws {
        let input = try #require(FuzzInput(Data("2pipeline\u{0C}presets\u{0C}more".utf8)))
        #expect(input.pipeline == Data("pipeline".utf8))
        #expect(input.presets == Data("presets\u{0C}more".utf8))
        let alone = try #require(FuzzInput(Data("2pipeline".utf8)))
        #expect(alone.pipeline == Data("pipeline".utf8))
        #expect(alone.presets == Data())
    }

    @Test func encodingIsTheInverseOfReading() throws {
        let pipeline = Data("title: x".utf8), presets = Data("quality: {}".utf8)
        for layout in FuzzInput.Layout.allCases {
            for mode in [Planner.Mode.validate, .run] {
                let input = try #require(FuzzInput(FuzzInput.encode(layout: layout, mode: mode, pipeline: pipeline, presets: presets)))
                #expect(input.layout == layout && input.mode == mode)
                #expect(input.pipeline == (layout == .presets ? nil : pipeline))
                #expect(input.presets == (layout == .pipeline ? nil : presets))
            }
        }
    }

    @Test func theEmptyInputIsNothing() {
        #expect(FuzzInput(Data()) == nil)
    }
}
