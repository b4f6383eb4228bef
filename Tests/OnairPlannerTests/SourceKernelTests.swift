import Foundation
import OnairConfig
import OnairPlanner
import OnairTestSupport
import Testing

/// Seed combinations fed by a live camera, each with a logo, a 16:9 recording and a 9:16 crop.
private func show(active: String, extraLayer: String = "") -> String {
    """
    title: Seed
    sources:
      camera: {kind: listen, url: "srt://0.0.0.0:9000"}
      clip: {kind: file, path: ../assets/green.mp4, loop: true}
    overlays:
      keyed:
        kind: virtual-background
        person: camera
        background: {image: ../assets/studio.png}
        key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0.2}
        placement: {position: bottom, scale: 0.9, margin: 0}
      clip-keyed:
        kind: virtual-background
        person: clip
        background: {image: ../assets/studio.png}
        key: {color: "#00FF00", similarity: 0.25, blend: 0.08, spill: 0}
        placement: {position: bottom, scale: 0.5, margin: 0}
      room: {kind: real-scene, camera: camera, auto_lighting: 0.7}
      plain: {kind: real-scene, camera: camera}
      avatar:
        kind: scene-avatar
        scene: camera
        avatar: {image: ../assets/avatar.png}
        placement: {position: bottom-right, scale: 0.3, margin: 32}
    active: \(active)
    audio: camera
    layers:
      - {kind: image, image: ../assets/logo.png, position: top-right, scale: 0.1}
    \(extraLayer)
    quality:
    \(YAML.quality(width: 1920, height: 1080))
    destinations:
      landscape: {kind: record, path: ../recordings/show.mkv}
    \(YAML.recording("vertical", width: 1080, height: 1920, vertical: true))

    """
}

@Suite struct SourceKernelTests {
    private func plan(_ yaml: String) throws -> PipelinePlan {
        let outcome = try ScratchProject.planning(yaml, assets: ["studio.png", "avatar.png", "logo.png", "green.mp4"])
        #expect(outcome.errors.isEmpty, "\(outcome.errors.map(\.description))")
        return try #require(outcome.plan)
    }

    private func chain(producing label: GraphPad, in plan: PipelinePlan) throws -> FilterChain {
        try #require(plan.graph.chains.first { $0.outputs == [label] })
    }

    @Test("a camera in front of a green screen is keyed by a kernel, then only scaled in the graph")
    func cameraIsKeyedByAKernel() throws {
        let plan = try plan(show(active: "keyed"))
        let camera = try #require(plan.inputs.first { $0.name == "camera" })
        let kernel = try #require(plan.graph.kernels.first)
        #expect(plan.graph.kernels.count == 1)
        #expect(kernel.pad == .input(camera.index, .video))
        #expect(kernel.work == .chromaKey(color: 0x00FF00, similarity: 0.25, blend: 0.08, spill: 0.2))
        #expect(kernel.work.outputPixelFormat == "yuva420p")
        #expect(kernel.origin?.line == 6, "the line of 'keyed:'")
        let person = try chain(producing: kernel.consumer, in: plan)
        #expect(person.inputs == [kernel.pad])
        #expect(person.filters.map(\.description) == ["fps=30", "scale=w=-2:h=972", "format=yuva420p"])
        #expect(!plan.graph.filtersInOrder.contains { ["chromakey", "despill"].contains($0.name) })
    }

    @Test("the still background under a moving person is scaled once and repeated; the person sets the pace")
    func backgroundIsFrozenUnderAMovingPerson() throws {
        let plan = try plan(show(active: "keyed"))
        let studio = try #require(plan.inputs.first { $0.name == "asset:assets/studio.png" })
        #expect(studio.kind == .file(path: "assets/studio.png", loop: false, still: true))
        #expect(studio.options.isEmpty, "read once, not as a paced stream")
        let background = try #require(plan.graph.chains.first { $0.inputs == [.input(studio.index, .video)] })
        #expect(background.filters.map(\.name) == ["scale", "crop", "setsar", "format", "loop", "settb", "setpts"])
        #expect(background.filters[3].description == "format=yuv420p")
        // Repeat N at frame N of the scene's grid, where the person's frame N is.
        #expect(background.filters[5...].map(\.description) == ["settb=1/30", "setpts=STARTPTS+N"])
        let person = try chain(producing: try #require(plan.graph.kernels.first).consumer, in: plan)
        #expect(person.filters.first?.description == "fps=30")
        let overlay = try #require(plan.graph.filtersInOrder.first { $0.purpose == "person over background" })
        #expect(overlay.options.contains(FilterOption("shortest", "1")))
    }

    @Test("a still person is keyed once in the graph, at the smaller of its own size and its place")
    func stillPersonIsKeyedInTheGraph() throws {
        let yaml = show(active: "keyed").replacingOccurrences(of: "    person: camera", with: "    person: photo")
            .replacingOccurrences(of: "sources:\n", with: "sources:\n  photo: {kind: file, path: ../assets/studio.png}\n")
        let plan = try plan(yaml)
        #expect(plan.graph.kernels.isEmpty)
        let photo = try #require(plan.inputs.first { $0.name == "photo" })
        let person = try #require(plan.graph.chains.first { $0.inputs == [.input(photo.index, .video)] })
        #expect(person.filters.map(\.description) == [
            "scale=w=-2:h=min(ih\\,972)", "chromakey=color=0x00FF00:similarity=0.25:blend=0.08", "despill=type=green:mix=0.2",
            "format=yuva420p", "scale=w=-2:h=972", "format=yuva420p", "loop=loop=-1:size=1:start=0", "setpts=STARTPTS+N/30/TB",
        ])
    }

    @Test("a file clip is keyed by a kernel too; no spill removal when spill is 0")
    func clipIsKeyedWithoutSpill() throws {
        let plan = try plan(show(active: "clip-keyed"))
        let kernel = try #require(plan.graph.kernels.first)
        #expect(kernel.work == .chromaKey(color: 0x00FF00, similarity: 0.25, blend: 0.08, spill: 0))
        #expect(kernel.equivalent.map(\.name) == ["chromakey", "format"])
        #expect(try chain(producing: kernel.consumer, in: plan).filters.map(\.description).dropFirst().first == "scale=w=-2:h=540")
    }

    @Test("auto lighting on a camera is a kernel with a second of smoothing; without it, no kernel")
    func lightingIsAKernel() throws {
        let plan = try plan(show(active: "room"))
        let kernel = try #require(plan.graph.kernels.first)
        #expect(kernel.work == .autoLighting(strength: 0.7, smoothing: 30))
        #expect(kernel.work.outputPixelFormat == "yuv420p")
        let composed = try chain(producing: kernel.consumer, in: plan)
        #expect(composed.filters.map(\.name) == ["scale", "pad", "setsar"])
        #expect(!plan.graph.filtersInOrder.contains { $0.name == "normalize" })
        #expect(try self.plan(show(active: "plain")).graph.kernels.isEmpty)
        #expect(try self.plan(show(active: "avatar")).graph.kernels.isEmpty)
    }

    @Test("a camera also read elsewhere (a picture-in-picture of itself) keeps its raw pictures: the kernel becomes filters")
    func sharedPadTurnsTheKernelIntoFilters() throws {
        let plan = try plan(show(active: "room", extraLayer: "  - {kind: pip, source: camera, position: top-left, scale: 0.25}"))
        #expect(plan.graph.kernels.isEmpty)
        let camera = try #require(plan.inputs.first { $0.name == "camera" })
        let lit = try #require(plan.graph.chains.first { $0.inputs == [.input(camera.index, .video)] && $0.filters.first?.name == "normalize" })
        #expect(lit.filters.map(\.name) == ["normalize", "format", "scale", "pad", "setsar"])
        #expect(lit.filters[0].description == "normalize=smoothing=30:independence=0:strength=0.7")
    }

    @Test("ffmpeg's text runs each kernel's libavfilter equivalent; the engine's text leaves it to the kernel")
    func textsForFFmpegAndForTheEngine() throws {
        let plan = try plan(show(active: "keyed"))
        let kernel = try #require(plan.graph.kernels.first)
        let forFFmpeg = plan.graph.description()
        #expect(forFFmpeg.contains("[\(kernel.pad)]chromakey=color=0x00FF00:similarity=0.25:blend=0.08,despill=type=green:mix=0.2,format=yuva420p,fps=30,scale=w=-2:h=972"))
        let forEngine = plan.graph.description(kernels: .appliedToSources)
        #expect(forEngine.contains("[\(kernel.pad)]fps=30,scale=w=-2:h=972,format=yuva420p[\(kernel.consumer)]"))
        #expect(!forEngine.contains("chromakey"))
        #expect(FFmpegCommand(plan: plan).arguments.map(\.text).contains(forFFmpeg))
        #expect(plan.graph.withKernelsAsFilters.filtersInOrder.count == plan.graph.filtersInOrder.count + kernel.equivalent.count)
    }
}
