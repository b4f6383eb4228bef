import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// A virtual-background show with three more sources than it needs on air.
private let virtualStudio = """
    title: Keyed
    sources:
      camera: {kind: test, pattern: testsrc2, tone: 440, size: 1280x720, fps: 30}
      presenter: {kind: file, path: ../assets/presenter.png, loop: true}
      guest: {kind: listen, url: "srt://0.0.0.0:9001"}
      spare: {kind: test, pattern: smptebars, size: 640x360}
    overlays:
      studio:
        kind: virtual-background
        person: presenter
        background: {image: ../assets/studio.png}
        key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0.2}
        placement: {position: bottom, scale: 0.9, margin: 0}
      room: {kind: real-scene, camera: camera}
      interview: {kind: real-scene, camera: guest}
    active: studio
    audio: camera
    quality:
    \(YAML.quality())
    destinations:
      archive: {kind: record, path: ../recordings/show.mkv}

    """

@Suite struct SceneGraphTests {
    private func plan(_ yaml: String = virtualStudio) throws -> PipelinePlan {
        let outcome = try ScratchProject.planning(yaml, assets: ["presenter.png", "studio.png"])
        #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
        return try #require(outcome.plan)
    }

    @Test func stillPersonIsKeyedOnceAtTheSmallerOfItsSizeAndItsPlace() throws {
        let plan = try plan()
        let presenter = try #require(plan.inputs.first { $0.name == "presenter" })
        let chain = try #require(plan.graph.chains.first { $0.filters.contains { $0.name == "chromakey" } })
        #expect(chain.inputs == [.input(presenter.index, .video)], "the keying chain reads the person's input directly")
        #expect(plan.graph.kernels.isEmpty, "a still is keyed inside the graph, once")
        // The presenter is a still photo: shrunk to its place if it is larger (never enlarged
        // before the key), keyed once, brought to its height (0.9 x 720) and overlay's format
        // once, then repeated by `loop` instead of being keyed on every frame.
        #expect(chain.filters.map(\.name) == ["scale", "chromakey", "despill", "format", "scale", "format", "loop", "setpts"])
        #expect(chain.filters[0].description == "scale=w=-2:h=min(ih\\,648)")
        #expect(chain.filters[1].description == "chromakey=color=0x00FF00:similarity=0.25:blend=0.08")
        #expect(chain.filters[4].description == "scale=w=-2:h=648")
        // No chain scales the keyed picture afterwards: the overlay takes it as it is.
        let keyed = try #require(chain.outputs.first)
        let consumer = try #require(plan.graph.chains.first { $0.inputs.contains(keyed) })
        #expect(consumer.filters.map(\.name) == ["overlay"])
    }

    @Test func filtersCarryTheLocationOfTheOverlayThatAskedForThem() throws {
        let plan = try plan()
        let chromakey = try #require(plan.graph.filtersInOrder.first { $0.name == "chromakey" })
        let origin = try #require(chromakey.origin)
        #expect(origin.file == "Pipelines/show.yaml")
        #expect(origin.line == 8, "the line of 'studio:'")
    }

    @Test func onlyWhatTheActiveCombinationUsesIsOpened() throws {
        let plan = try plan()
        #expect(plan.unusedSources == ["guest", "spare"])
        #expect(!plan.inputs.contains { $0.name == "guest" || $0.name == "spare" })
        #expect(plan.inputs.map(\.name) == ["asset:assets/studio.png", "presenter", "camera"])
        #expect(Set(plan.graph.inputPads) == [.input(0, .video), .input(1, .video), .input(2, .audio)])
        #expect(PlanSummary.render(plan).contains("(not opened, unused by 'studio': guest, spare)"))
    }

    @Test func leadSourceUsedOnlyForSoundOpensNoVideo() throws {
        let plan = try plan()
        // `camera` leads `room` but only its tone is on air with `studio`.
        let camera = try #require(plan.inputs.first { $0.name == "camera" })
        #expect(camera.kind == .lavfi("sine=frequency=440:sample_rate=48000"))
        #expect(camera.video == nil)
        #expect(camera.audio?.sampleRate == 48000)
        #expect(camera.audio?.channels == 1)
        #expect(!plan.inputs.contains { if case .lavfi(let graph) = $0.kind { graph.hasPrefix("testsrc2") } else { false } })
        #expect(!plan.graph.inputPads.contains(.input(camera.index, .video)))
    }

    @Test func streamUsedOnlyForSoundOpensNoVideo() throws {
        // The same with a pulled stream: its sound is read, its pictures are not.
        let yaml = virtualStudio
            .replacingOccurrences(of: "  spare: {kind: test, pattern: smptebars, size: 640x360}",
                                  with: "  mic: {kind: network, url: \"srt://127.0.0.1:9002\"}")
            .replacingOccurrences(of: "audio: camera", with: "audio: mic")
        let plan = try plan(yaml)
        let mic = try #require(plan.inputs.first { $0.name == "mic" })
        #expect(mic.kind == .network(url: "srt://127.0.0.1:9002"))
        #expect(mic.audio != nil)
        #expect(mic.video == nil, "a source used only for its sound must not read video")
        #expect(plan.graph.inputPads.contains(.input(mic.index, .audio)))
        #expect(plan.unusedSources == ["camera", "guest"])
    }

    @Test("without audio:, a silent combination on air takes its sound from the first combination's camera that has sound")
    func silentCombinationTakesTheFirstCameraWithSound() throws {
        // studio's lead is a still (no sound); room's camera has a tone; interview's comes later.
        let plan = try plan(virtualStudio.replacingOccurrences(of: "audio: camera\n", with: ""))
        let camera = try #require(plan.inputs.first { $0.name == "camera" })
        #expect(camera.audio != nil)
        #expect(camera.video == nil, "the camera is not on air: only its sound is read")
        #expect(plan.renditions.allSatisfy { $0.audio != nil && $0.audioPad != nil })
    }

    @Test func activeLeadSourceGivesPictureAndSoundFromOneInput() throws {
        let yaml = virtualStudio
            .replacingOccurrences(of: "active: studio", with: "active: interview")
            .replacingOccurrences(of: "audio: camera\n", with: "")
        let plan = try plan(yaml)
        let guest = try #require(plan.inputs.first { $0.name == "guest" })
        #expect(plan.inputs.count == 1)
        #expect(guest.kind == .listen(url: "srt://0.0.0.0:9001"))
        #expect(guest.video != nil)
        #expect(guest.audio != nil)
        #expect(Set(plan.graph.inputPads) == [.input(0, .video), .input(0, .audio)])
        #expect(plan.unusedSources == ["camera", "presenter", "spare"])
    }

    @Test func graphPadsConnect() throws {
        let plan = try plan()
        // Every pad a chain reads is an input pad or produced exactly once by another chain.
        var produced: [GraphPad: Int] = [:]
        for chain in plan.graph.chains { for pad in chain.outputs { produced[pad, default: 0] += 1 } }
        #expect(produced.values.allSatisfy { $0 == 1 })
        let inputs = Set(plan.inputs.map(\.index)).flatMap { [GraphPad.input($0, .video), .input($0, .audio)] }
        for chain in plan.graph.chains {
            for pad in chain.inputs {
                #expect(produced[pad] != nil || inputs.contains(pad), "\(pad) comes from nowhere")
            }
        }
        #expect(Set(plan.graph.outputPads) == Set(plan.renditions.flatMap { [$0.videoPad] + ($0.audioPad.map { [$0] } ?? []) }))
    }
}

@Suite struct DeterminismTests {
    @Test func planningTwiceGivesEqualPlans() throws {
        let first = planShipped("studio")
        let second = planShipped("studio")
        let plan = try #require(first.plan)
        #expect(plan == second.plan)
        #expect(first.diagnostics == second.diagnostics)

        let demo = try #require(planShipped("demo").plan)
        #expect(demo == planShipped("demo").plan)
        #expect(demo != plan)
    }

    @Test(arguments: ["demo", "studio"])
    func jsonRoundTripsToAnEqualPlan(name: String) throws {
        let plan = try #require(planShipped(name).plan)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(plan)
        let decoded = try JSONDecoder().decode(PipelinePlan.self, from: data)
        #expect(decoded == plan)
        // Encoding is stable byte for byte.
        #expect(try encoder.encode(decoded) == data)
        #expect(try encoder.encode(try #require(planShipped(name).plan)) == data)
    }

    @Test func plansUseProjectRelativePaths() throws {
        let plan = try #require(planShipped("demo").plan)
        let json = String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)
        #expect(!json.contains(repositoryRoot.path), "the plan must not depend on where the project is")
        #expect(plan.outputs.map(\.target) == ["recordings/demo-16x9.mkv", "recordings/demo-9x16.mkv"])
    }
}
