import Foundation
import OnairConfig
import OnairControl

/// Computes a plan's ``CostEstimate``: follows the pictures through the filter graph (size,
/// frame rate, and whether each is a still computed once) and prices every input, filter,
/// encoder and output with ``CostCoefficients``.
public struct CostEstimator: Sendable {
    /// The prices.
    public var coefficients: CostCoefficients

    /// An estimator with `coefficients` (by default, the measured ones).
    public init(coefficients: CostCoefficients = .measured) {
        self.coefficients = coefficients
    }

    /// The cost of running `plan` in real time, with `standbyCombinations` other overlay
    /// combinations kept ready for a switch.
    public func estimate(_ plan: PipelinePlan, standbyCombinations: Int = 0) -> CostEstimate {
        let c = coefficients
        var terms = Terms(cpu: [CostTerm(component: "base", detail: "the process", work: 1, amount: c.baseCores)],
                          memory: [CostTerm(component: "memory.base", detail: "the process", work: 1, amount: c.baseBytes)])
        addInputs(of: plan, to: &terms)
        addFilters(of: plan, to: &terms)
        let scenePixels = Double(plan.canvas.width * plan.canvas.height)
        terms.memory.append(CostTerm(component: "memory.graph", detail: "scene \(plan.canvas)", work: scenePixels, amount: c.graphBytesPerPixel * scenePixels))
        if standbyCombinations > 0 {
            let work = scenePixels * Double(standbyCombinations)
            terms.memory.append(CostTerm(component: "memory.standby", detail: "\(standbyCombinations) combination(s) ready to switch to",
                                         work: work, amount: c.standbyBytesPerPixel * work))
        }
        addEncoders(of: plan, to: &terms)
        addOutputs(of: plan, to: &terms)
        func rounded(_ terms: [CostTerm], places: Double) -> [CostTerm] {
            terms.map { term in
                var term = term
                term.work = (term.work * 1000).rounded() / 1000
                term.amount = (term.amount * places).rounded() / places
                return term
            }
            .sorted { $0.amount != $1.amount ? $0.amount > $1.amount : ($0.component, $0.detail) < ($1.component, $1.detail) }
        }
        let cores = terms.cpu.map(\.amount).reduce(0, +)
        let bytes = terms.memory.map(\.amount).reduce(0, +)
        return CostEstimate(cpuCores: (cores * 100).rounded(.up) / 100, memoryBytes: Int(bytes.rounded(.up)),
                            cpu: rounded(terms.cpu, places: 1000), memory: rounded(terms.memory, places: 1), calibration: c.calibration)
    }

    /// The terms an estimate adds up, CPU cores and bytes.
    private struct Terms {
        var cpu: [CostTerm]
        var memory: [CostTerm]
    }

    /// Megapixels per second of pictures of that size and rate.
    private static func megapixels(_ width: Int, _ height: Int, _ fps: Int) -> Double { Double(width * height * fps) / 1_000_000 }

    /// Making or decoding each input's pictures, holding them, and onair's kernels on them.
    private func addInputs(of plan: PipelinePlan, to terms: inout Terms) {
        let c = coefficients
        var kernels: [CostTerm] = []
        for input in plan.inputs {
            guard let video = input.video else { continue }
            let rate = Self.megapixels(video.width, video.height, video.fps)
            let pixels = Double(video.width * video.height)
            let detail = "\(input.name) \(video.width)x\(video.height) \(video.fps)fps"
            switch input.kind {
            case .lavfi(let graph):
                let generator = String(graph.prefix { $0 != "=" })
                let price = c.synthesis[generator] ?? c.synthesis["default"] ?? 0
                terms.cpu.append(CostTerm(component: "synthesis.\(c.synthesis[generator] == nil ? "default" : generator)",
                                          detail: detail, work: rate, amount: price * rate))
                terms.memory.append(CostTerm(component: "memory.input", detail: input.name, work: pixels, amount: c.inputBytesPerPixel * pixels))
            case .file(_, _, true):  // decoded once
                terms.memory.append(CostTerm(component: "memory.still", detail: input.name, work: pixels, amount: c.stillBytesPerPixel * pixels))
            case .file, .network, .listen, .device:
                terms.cpu.append(CostTerm(component: "decode", detail: detail, work: rate, amount: c.decode * rate))
                terms.memory.append(CostTerm(component: "memory.decode", detail: input.name, work: pixels, amount: c.decodeBytesPerPixel * pixels))
            }
            // onair's kernel on the input's pictures, before the graph (a still has none).
            if let kernel = plan.graph.kernel(at: .input(input.index, .video)) {
                kernels.append(CostTerm(component: "kernel.\(kernel.work.name)", detail: detail, work: rate,
                                        amount: (c.kernels[kernel.work.name] ?? 0) * rate))
            }
        }
        terms.cpu += kernels
    }

    /// Every filter that works on moving pictures, at the size and rate it processes.
    private func addFilters(of plan: PipelinePlan, to terms: inout Terms) {
        let c = coefficients
        for (filter, picture) in PictureFlow(plan: plan).filters where !picture.still {
            let rate = Self.megapixels(picture.width, picture.height, picture.fps)
            let detail = "\(filter.name) \(picture.width)x\(picture.height) \(picture.fps)fps"
            if filter.name == "drawtext" {
                terms.cpu.append(CostTerm(component: "drawtext", detail: detail, work: Double(picture.fps), amount: c.drawtextPerFrame * Double(picture.fps)))
            } else if let known = c.filters[filter.name] {
                terms.cpu.append(CostTerm(component: "filter.\(filter.name)", detail: detail, work: rate, amount: known * rate))
            } else if !PictureFlow.costsNothing.contains(filter.name) {
                terms.cpu.append(CostTerm(component: "filter.default", detail: detail, work: rate, amount: (c.filters["default"] ?? 0) * rate))
            }
        }
    }

    /// Each rendition's encoders and what they hold.
    private func addEncoders(of plan: PipelinePlan, to terms: inout Terms) {
        let c = coefficients
        for rendition in plan.renditions {
            let video = rendition.video
            let rate = Self.megapixels(video.width, video.height, video.fps)
            let preset = c.x264[video.preset] == nil ? "medium" : video.preset
            terms.cpu.append(CostTerm(component: "x264.\(preset)", detail: "\(rendition.id) \(video.width)x\(video.height) \(video.fps)fps",
                                      work: rate, amount: (c.x264[preset] ?? 0) * rate))
            // Its sound, and its VOD track's (encoded alike).
            if let audio = rendition.audio {
                for pad in rendition.soundPads {
                    terms.cpu.append(CostTerm(component: "aac", detail: "\(rendition.id)\(pad == rendition.audioPad ? "" : " VOD track") \(audio.channels) channel(s)",
                                              work: Double(audio.channels), amount: c.aacPerChannel * Double(audio.channels)))
                }
            }
            let pixels = Double(video.width * video.height)
            terms.memory.append(CostTerm(component: "memory.encoder", detail: rendition.id, work: pixels, amount: c.encoderBytesPerPixel * pixels))
        }
    }

    /// Writing each output, and the queue of each network one.
    private func addOutputs(of plan: PipelinePlan, to terms: inout Terms) {
        for output in plan.outputs {
            let megabits = Double(output.bitrate) / 1_000_000
            terms.cpu.append(CostTerm(component: "output", detail: output.destination, work: megabits, amount: coefficients.outputPerMegabit * megabits))
            if output.kind == .rtmp || output.kind == .srt {
                terms.memory.append(CostTerm(component: "memory.queue", detail: output.destination, work: 1, amount: coefficients.destinationQueueBytes))
            }
        }
    }
}

/// The pictures flowing through a plan's filter graph: for every filter, the picture it
/// processes (its first input's, or for `overlay` the one laid on top), found by following
/// sizes and frame rates from the inputs through the filters that change them.
struct PictureFlow {
    /// A picture at some pad.
    struct Picture: Equatable {
        var width: Int
        var height: Int
        var fps: Int
        /// Computed once and repeated (a still image, before `loop` repeats it): costs nothing
        /// per frame.
        var still: Bool
    }

    /// Filters that only relabel frames or pass them by reference.
    static let costsNothing: Set<String> = ["split", "asplit", "setsar", "setpts", "fps", "loop", "crop", "format",
                                            "aresample", "aformat", "anull", "null"]

    /// Every video filter with the picture it processes, in graph order.
    private(set) var filters: [(Filter, Picture)] = []

    init(plan: PipelinePlan) {
        var pads: [GraphPad: Picture] = [:]
        for input in plan.inputs {
            guard let video = input.video else { continue }
            var still = false
            if case .file(_, let loop, true) = input.kind { still = !loop }
            pads[.input(input.index, .video)] = Picture(width: video.width, height: video.height, fps: video.fps, still: still)
        }
        // Chains are written producers first, except where a later chain feeds an earlier one;
        // a few passes settle that.
        var pending = plan.graph.chains
        // Sound: the inputs' `:a` pads and everything made from them only.
        var sound = Set(plan.inputs.filter { $0.audio != nil }.map { GraphPad.input($0.index, .audio) })
        for _ in 0..<max(1, pending.count) where !pending.isEmpty {
            var next: [FilterChain] = []
            for chain in pending {
                if !chain.inputs.isEmpty, chain.inputs.allSatisfy(sound.contains) {
                    sound.formUnion(chain.outputs)
                    continue
                }
                let inputs = chain.inputs.compactMap { pads[$0] }
                guard inputs.count == chain.inputs.count, var picture = inputs.first else {
                    next.append(chain)
                    continue
                }
                for filter in chain.filters {
                    let top = filter.name == "overlay" && inputs.count > 1 && filter == chain.filters.first ? inputs[1] : picture
                    var processed = filter.name == "overlay" ? top : picture
                    if filter.name == "overlay" {
                        // Blending runs at the base's rate; it is per frame unless both are stills.
                        processed.fps = picture.fps
                        processed.still = picture.still && top.still
                    }
                    let output = Self.output(of: filter, from: picture)
                    if filter.name == "scale", output.width * output.height > picture.width * picture.height {
                        processed.width = output.width
                        processed.height = output.height
                    }
                    let passthrough = filter.name == "scale" && (output.width, output.height) == (picture.width, picture.height)
                        || filter.name == "pad" && (output.width, output.height) == (picture.width, picture.height)
                    if !passthrough { filters.append((filter, processed)) }
                    picture = output
                    if filter.name == "overlay" { picture.still = processed.still }
                }
                for pad in chain.outputs { pads[pad] = picture }
            }
            pending = next
        }
    }

    /// The picture `filter` makes of `input`.
    static func output(of filter: Filter, from input: Picture) -> Picture {
        var output = input
        func option(_ key: String) -> String? { filter.options.first { $0.key == key }?.value }
        switch filter.name {
        case "scale":
            let width = option("w").flatMap(Int.init) ?? input.width
            let height = option("h").flatMap(Int.init) ?? input.height
            let aspect = Double(input.width) / Double(max(1, input.height))
            switch (width, height, option("force_original_aspect_ratio")) {
            case (let w, let h, "decrease"?) where w > 0 && h > 0:
                let factor = min(Double(w) / Double(input.width), Double(h) / Double(input.height))
                output.width = even(Double(input.width) * factor)
                output.height = even(Double(input.height) * factor)
            case (let w, let h, "increase"?) where w > 0 && h > 0:
                let factor = max(Double(w) / Double(input.width), Double(h) / Double(input.height))
                output.width = even(Double(input.width) * factor)
                output.height = even(Double(input.height) * factor)
            case (let w, let h, _) where w <= 0 && h > 0:
                output.width = even(Double(h) * aspect)
                output.height = h
            case (let w, let h, _) where h <= 0 && w > 0:
                output.width = w
                output.height = even(Double(w) / aspect)
            default:
                output.width = width
                output.height = height
            }
        case "crop", "pad":
            output.width = option("w").flatMap(Int.init) ?? input.width
            output.height = option("h").flatMap(Int.init) ?? input.height
        case "fps":
            output.fps = filter.options.first.flatMap { Int($0.value) } ?? input.fps
        case "loop":
            // The repeated still runs at the pace of what it is laid on.
            output.still = false
        default:
            break
        }
        return output
    }

    static func even(_ value: Double) -> Int { max(2, Int((value / 2).rounded()) * 2) }
}
