import Foundation
import OnairConfig
import OnairControl
import OnairFonts

/// Builds the filter graph of the active overlay combination, its layers and one output pad
/// per rendition, and the list of inputs it reads. Decisions that keep it fast:
/// - a moving picture is keyed, and a camera's lighting corrected, by the engine's kernels
///   before the graph (`SourceKernel`): libavfilter's chromakey + despill and normalize cost
///   more than a 1080p frame's whole budget on 2 cores;
/// - a still is keyed once, at the smaller of its own size and its place;
/// - a still background under a moving picture is processed once and repeated, and the moving
///   picture sets the pace;
/// - the scene is split once per distinct canvas (crop), then once per distinct size;
/// - only what the active combination, the layers and the audio use is opened.
/// Layers are drawn on each picture size after scaling, fitted to it (see ``LayerCanvas``).
struct SceneCompiler {
    let spec: PipelineSpec
    let width: Int
    let height: Int
    let fps: Int
    /// Where text layers' fonts are found and measured.
    let fonts: FontBook
    /// The folder project-relative font files are read from (nil: the working directory).
    let projectRoot: URL?
    /// The layers at the moment of the show planned: shown or not, what their text says.
    let layerStates: LayerStates
    private(set) var inputs: [PlannedInput] = []
    private(set) var usedSources: Set<String> = []
    private(set) var hasAudio = false
    /// The failover groups of the inputs the graph reads.
    private(set) var failover: [FailoverPlan] = []
    private var chains: [FilterChain] = []
    private var kernels: [SourceKernel] = []
    private var labels: [String: Int] = [:]
    private var videoPads: [String: GraphPad] = [:]
    private var audioPads: [String: GraphPad] = [:]
    /// Copies of a source's or a mix's sound not yet taken by the mixes that hear it, by name.
    var soundCopies: [String: [GraphPad]] = [:]
    /// The mixes compiled, each once, with their members' live-level targets.
    var compiledMixes: [PlannedMix] = []
    private var sharedCopies: [GraphPad: [GraphPad]] = [:]
    /// Pads whose picture comes from a still image, by the image's input index.
    private var stillOrigin: [GraphPad: Int] = [:]
    /// Still inputs that form the base of the scene: read as a repeating, paced stream.
    private var baseStills: Set<Int> = []
    /// Still-image pads overlaid on something, or (`isBase`) with a moving picture drawn onto
    /// them (a background under a camera): computed once, then repeated by `loop`.
    private var frozenPads: [(pad: GraphPad, isBase: Bool)] = []

    init(spec: PipelineSpec, fonts: FontBook = .shared, projectRoot: URL? = nil, moment: ShowMoment? = nil) {
        self.spec = spec
        layerStates = LayerStates(spec: spec, moment: moment)
        width = spec.quality.width.value
        height = spec.quality.height.value
        fps = spec.quality.fps.value
        self.fonts = fonts
        self.projectRoot = projectRoot
    }

    /// The source whose sound is broadcast, if any has sound: the one `audio:` names, else the
    /// active combination's lead (its camera), else the first combination's lead with sound.
    /// The last keeps a pipeline that starts on silent slides audible — a platform may require
    /// a sound track, and a run can then switch to the camera without changing encoders.
    /// (Nil when `audio:` names a mix: see ``soundName(of:)``.)
    static func audioSource(of spec: PipelineSpec) -> SourceSpec? {
        if let name = spec.audio?.value { return spec.source(name) }
        let active = spec.overlay(spec.active.value).map { [$0] } ?? []
        return (active + spec.overlays).lazy
            .compactMap { spec.source($0.leadSource.value) }
            .first { $0.hasAudio }
    }

    /// The name of the sound broadcast: the mix or the source `audio:` names, else the source
    /// ``audioSource(of:)`` picks; nil for none.
    static func soundName(of spec: PipelineSpec) -> String? {
        if let name = spec.audio?.value, spec.mix(name) != nil { return name }
        return audioSource(of: spec)?.name
    }

    // MARK: - Entry

    mutating func compile(renditions: RenditionTable, log: DiagnosticLog) -> FilterGraph {
        guard let overlay = spec.overlay(spec.active.value) else { return FilterGraph() }
        var scene = compose(overlay)
        if let origin = stillOrigin[scene] { baseStills.insert(origin) }
        // `fps` holds each picture until the next one shows where it falls; with `latency: low`
        // the encoder keeps the cadence instead (a repeat fills a gap, a second picture in one
        // frame interval is dropped) without that frame of delay.
        if spec.latency != .low {
            scene = chain([scene], [Filter("fps", [FilterOption(nil, String(fps))], purpose: "steady \(fps) fps scene")], "scene")
        }
        splitVideo(scene, renditions: renditions, log: log)
        freezeStills()
        compileSound(renditions: renditions, log: log)
        addBackups(log: log)
        var graph = FilterGraph(chains: chains, kernels: kernels)
        graph.inlineSharedKernels()
        return graph
    }

    /// The sound of every rendition: the pipeline's (`audio:`, a mix or a source), or the mix
    /// or source its destinations name. Each is compiled once (see ``mixSounds(_:)``).
    private mutating func compileSound(renditions: RenditionTable, log: DiagnosticLog) {
        var main = Self.soundName(of: spec)
        if let name = main, let source = spec.source(name), !source.hasAudio, let written = spec.audio {
            log.error("no-audio", "source '\(source.name)' has no sound", at: written.location,
                      suggestion: "pick a source with audio, or remove 'audio:'")
            main = nil
        }
        var heard: [(sound: String, encoders: [SoundEncoder])] = []
        func hear(_ sound: String, by encoder: SoundEncoder) {
            if let group = heard.firstIndex(where: { $0.sound == sound }) { heard[group].encoders.append(encoder) } else { heard.append((sound, [encoder])) }
        }
        for (index, key) in renditions.keys.enumerated() {
            guard let sound = key.sound ?? main else { continue }
            hear(sound, by: SoundEncoder(pad: .rendition(index, .audio), audio: key.audio))
            if let track = key.vodTrack { hear(track, by: SoundEncoder(pad: .vodTrack(index), audio: key.audio)) }
        }
        if main == nil, let own = spec.destinations.first(where: { $0.audio != nil }), let written = own.audio,
           renditions.keys.contains(where: { $0.sound == nil }) {
            log.error("no-audio", "destination '\(own.name)' has sound of its own, but the pipeline has none for the others", at: written.location,
                      suggestion: "name the pipeline's sound with audio: (a mix or a source with sound)")
            return
        }
        let pads = mixSounds(heard.map(\.sound))
        for (group, pad) in zip(heard, pads) { splitAudio(pad, to: group.encoders) }
    }

    /// A sound encoder's graph pad (a rendition's sound, or its VOD track) and its settings.
    struct SoundEncoder {
        var pad: GraphPad
        var audio: AudioEncoding
    }

    /// Opens the backups of every input the graph reads that has a failover, after the graph's
    /// own inputs (so the graph's `-i` numbering is unchanged): each with what its primary
    /// feeds the graph (pictures, sound), though the graph never reads it.
    private mutating func addBackups(log: DiagnosticLog) {
        let shown = usedSources
        for primary in inputs {
            guard let source = spec.source(primary.name), let declared = source.failover, shown.contains(source.name) else { continue }
            var backups: [Int] = []
            for reference in declared.backups {
                guard let backup = spec.source(reference.value) else { continue }
                guard !shown.contains(backup.name) else {
                    log.error("failover-shown", "backup '\(backup.name)' of '\(source.name)' is also on screen in overlay combination '\(spec.active.value)' (or its sound is broadcast)",
                              at: reference.location, suggestion: "a backup stands in for its source: pick one that '\(spec.active.value)' does not show")
                    continue
                }
                if case .test = backup.kind { continue }  // refused by validation
                let index = openInput(backup)
                if primary.video == nil { inputs[index].video = nil }
                if primary.audio != nil { inputs[index].audio = AudioFormat(sampleRate: 48000, channels: 2) }
                usedSources.insert(backup.name)
                backups.append(index)
            }
            failover.append(FailoverPlan(primary: primary.index, backups: backups, when: declared.when,
                                         afterMs: declared.afterMs, clearMs: declared.clearMs))
        }
    }

    /// A still image overlaid on the scene (a logo, a keyed presenter photo, an avatar) is
    /// decoded and processed once, then repeated by `loop`: keying a 720p picture costs ~20 ms,
    /// repeating it nothing. A still that is the scene's base is instead read as a paced,
    /// repeating stream, because it sets the scene's pace.
    private mutating func freezeStills() {
        for (index, input) in inputs.enumerated() {
            guard case .file(let path, _, true) = input.kind else { continue }
            if baseStills.contains(index) {
                inputs[index].kind = .file(path: path, loop: true, still: true)
                inputs[index].options = [FormatOption("loop", "1"), FormatOption("framerate", String(fps))]
            }
        }
        for (pad, isBase) in frozenPads {
            guard let origin = stillOrigin[pad], !baseStills.contains(origin),
                  let chainIndex = chains.firstIndex(where: { $0.outputs == [pad] }) else { continue }
            chains[chainIndex].filters.append(Filter("loop", [FilterOption("loop", "-1"), FilterOption("size", "1"), FilterOption("start", "0")],
                                                     purpose: "repeat the processed still"))
            if isBase {
                // Exactly on the scene's frame grid, where the moving picture drawn on it is: repeat
                // N meets picture N. At N/30 s in microseconds they missed each other by a rounding
                // every third frame (one picture shown twice, the next skipped).
                chains[chainIndex].filters += [
                    Filter("settb", [FilterOption(nil, "1/\(fps)")], purpose: "the scene's frame grid"),
                    Filter("setpts", [FilterOption(nil, "STARTPTS+N")], purpose: "one repeat per frame, from when the still arrived"),
                ]
            } else {
                chains[chainIndex].filters.append(Filter("setpts", [FilterOption(nil, "STARTPTS+N/\(fps)/TB")],
                                                         purpose: "\(fps) fps timestamps for the repeats, from when the still arrived"))
            }
        }
    }

    // MARK: - Overlay combinations

    private mutating func compose(_ overlay: OverlaySpec) -> GraphPad {
        let origin = overlay.location
        switch overlay.kind {
        case .virtualBackground(let person, let background, let key, let placement):
            let backdrop = cover(background, origin: origin)
            let personHeight = DestinationTarget.even(Double(height) * placement.scale)
            let pad = videoPad(named: person.value)
            let keying = SourceKernel.Work.chromaKey(color: key.color, similarity: key.similarity, blend: key.blend, spill: key.spill)
            let scaled = scaleToHeight(personHeight, purpose: "scale the keyed person", origin: origin)
            let keyed: GraphPad
            if isMovingInput(pad) {
                // Keyed at the camera's own size, then scaled with its alpha. On the scene's frame
                // grid, so that each repeat of a frozen background meets the person picture of its
                // own instant (overlay pairs them by timestamp).
                keyed = chain(pad, after: keying, purpose: "key out the screen", origin: origin,
                              [Filter("fps", [FilterOption(nil, String(fps))], purpose: "the person at the scene's \(fps) fps", origin: origin), scaled], "person")
            } else {
                // A still is keyed once, at the smaller of its own size and its place.
                let shrunk = Filter("scale", [FilterOption("w", "-2"), FilterOption("h", "min(ih,\(personHeight))")], purpose: "shrink the person before keying, never enlarge", origin: origin)
                keyed = chain([pad], [shrunk] + keying.filters(purpose: "key out the screen", origin: origin) + [scaled], "person")
            }
            return overlayPad(keyed, on: backdrop, placement, purpose: "person over background", origin: origin, label: "composed")
        case .realScene(let camera, let lighting):
            let pad = videoPad(named: camera.value)
            let fitted = fit(purpose: "fit the camera to the canvas", origin: origin)
            guard let strength = lighting else { return chain([pad], fitted, "composed") }
            return chain(pad, after: .autoLighting(strength: strength, smoothing: fps), purpose: "automatic lighting", origin: origin, fitted, "composed")
        case .sceneAvatar(let scene, let avatar, let placement):
            let base = chain([videoPad(named: scene.value)], fit(purpose: "fit the scene to the canvas", origin: origin), "scene_base")
            let avatarHeight = DestinationTarget.even(Double(height) * placement.scale)
            let picture = chain([visualPad(avatar, origin: origin)],
                                [Filter("scale", [FilterOption("w", "-2"), FilterOption("h", String(avatarHeight))], purpose: "scale the avatar", origin: origin),
                                 Filter("format", [FilterOption(nil, "rgba")], purpose: "keep the avatar's transparency", origin: origin)], "avatar")
            return overlayPad(picture, on: base, placement, purpose: "avatar over scene", origin: origin, label: "composed")
        }
    }

    // MARK: - Layers

    /// A text layer's font: the drawtext option naming it and, when it could be read, its face
    /// for measuring.
    private struct LayerFont {
        var option: FilterOption
        var face: FontFace?
    }

    /// Resolves a text layer's font once: a family to the file fontconfig picks (so drawtext
    /// gets `fontfile=` and never loads fontconfig), a file to its face. A family with no file
    /// found keeps `font=` and is not fitted (a warning says so); an unreadable file is an error.
    private func font(of layer: LayerSpec, named name: String, log: DiagnosticLog) -> LayerFont? {
        guard case .text(let style) = layer.kind else { return nil }
        switch style.font {
        case .family(let family):
            if let file = fonts.file(forFamily: family), case .success(let face) = fonts.face(in: file) {
                // drawtext's fontfile= opens a file's first face: another face of a collection
                // (.ttc) keeps its family name, which fontconfig resolves to the same face.
                return LayerFont(option: file.index == 0 ? FilterOption("fontfile", file.path) : FilterOption("font", family), face: face)
            }
            log.warning("font-not-found", "no font file found for '\(family)': the text of \(name) is not fitted to the picture",
                        at: layer.location, suggestion: "install fontconfig (fc-match) and the font, or name a .ttf or .otf file in font:")
            return LayerFont(option: FilterOption("font", family), face: nil)
        case .file(let path):
            let absolute = path.url(in: projectRoot ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).path
            // A missing file is reported where the path is read.
            let option = FilterOption("fontfile", path.path, isPath: true)
            guard FileManager.default.fileExists(atPath: absolute) else { return LayerFont(option: option, face: nil) }
            switch fonts.face(in: FontFile(path: absolute)) {
            case .success(let face):
                return LayerFont(option: option, face: face)
            case .failure(let problem):
                log.error("font", "\(path.written) \(problem)", at: path.location, suggestion: "name a TrueType (.ttf) or OpenType (.otf) font file")
                return nil
            }
        }
    }

    /// Draws a layer on one picture (a rendition size of one canvas), fitted to it: text
    /// shrunk until it fits, images scaled to fit inside the margins, positions moved inside.
    private mutating func draw(_ index: Int, named name: String, font: LayerFont?, over base: GraphPad,
                               on canvas: LayerCanvas, picture: Int, of pictures: Int, log: DiagnosticLog) -> GraphPad {
        let layer = spec.layers[index]
        let origin = layer.location
        switch layer.kind {
        case .image(let path, let scale, let opacity):
            var filters = [fittedScale(fraction: scale, placement: layer.placement, canvas: canvas, purpose: "fit the image", origin: origin)]
            filters.append(Filter("format", [FilterOption(nil, "rgba")], purpose: "keep transparency", origin: origin))
            if opacity < 1 {
                filters.append(Filter("colorchannelmixer", [FilterOption("aa", FFmpegCommand.number(opacity))], purpose: "opacity", origin: origin))
            }
            let picturePad = chain([shared(stillPad(path), copy: picture, of: pictures)], filters, "logo")
            return overlayPad(picturePad, on: base, at: layerPosition(layer.placement, on: canvas), purpose: "image layer", origin: origin,
                              label: "layer", drawing: (index, picture))
        case .text(let style):
            guard let font else { return base }
            let text = LayerText(style.text.value, values: layerStates.values)
            let fitted = FittedText(text, style: style, placement: layer.placement, canvas: canvas, face: font.face, name: name)
            for problem in fitted.problems {
                log.warning("layer-fit", problem.message, at: origin, suggestion: problem.suggestion)
            }
            var options = [font.option, FilterOption("text", text.drawtext), FilterOption("fontsize", String(fitted.size)),
                           FilterOption("fontcolor", FFmpegCommand.color(style.color))]
            if let box = style.box {
                options.append(FilterOption("box", "1"))
                options.append(FilterOption("boxcolor", FFmpegCommand.color(box.color) + "@" + FFmpegCommand.number(box.opacity)))
                options.append(FilterOption("boxborderw", String(fitted.padding)))
            }
            options += [FilterOption("x", fitted.x), FilterOption("y", fitted.y)]
            return chain([base], [addressable(Filter("drawtext", options, purpose: "text layer", origin: origin), layer: index, picture: picture)], "layer")
        case .pip(let source, let scale):
            let inset = chain([shared(videoPad(named: source.value), copy: picture, of: pictures)],
                              [fittedScale(fraction: scale, placement: layer.placement, canvas: canvas, purpose: "fit the inset", origin: origin)],
                              "pip")
            return overlayPad(inset, on: base, at: layerPosition(layer.placement, on: canvas), purpose: "picture-in-picture", origin: origin,
                              label: "layer", drawing: (index, picture))
        }
    }

    /// `filter` as the filter that draws layer `index` on picture `picture` (one per size of
    /// each canvas): with the instance name a running graph addresses it by, when the layer has
    /// one (`layer_NAME` on the first picture, `layer_NAME.2`… on the others, each fitted to its
    /// own), and disabled (`enable=0`: the picture passes through undrawn) when the layer is
    /// hidden at the moment planned.
    private func addressable(_ filter: Filter, layer index: Int, picture: Int) -> Filter {
        guard let instance = LayerStates.instance(ofLayer: index, in: spec) else { return filter }
        var filter = filter
        filter.instance = picture == 0 ? instance : "\(instance).\(picture + 1)"
        if !layerStates.isShown(spec.layers[index]) { filter.options.append(FilterOption("enable", "0")) }
        return filter
    }

    /// Scales a layer's picture to `fraction` of the canvas width (nil: its own size, in scene
    /// pixels), never larger than the canvas less the margins, keeping its aspect ratio.
    private func fittedScale(fraction: Double?, placement: Placement, canvas: LayerCanvas, purpose: String, origin: SourceLocation) -> Filter {
        let margin = canvas.pixels(placement.margin)
        let room = (width: max(2, canvas.width - (placement.x == nil ? 2 * margin : 0)),
                    height: max(2, canvas.height - (placement.y == nil ? 2 * margin : 0)))
        let width: String, height: String
        if let fraction {
            width = String(min(DestinationTarget.even(Double(canvas.width) * fraction), room.width))
            height = String(room.height)
        } else {
            let factor = canvas.unit == 1 ? "" : "*" + FFmpegCommand.number(canvas.unit)
            width = "min(iw\(factor),\(room.width))"
            height = "min(ih\(factor),\(room.height))"
        }
        return Filter("scale", [FilterOption("w", width), FilterOption("h", height), FilterOption("force_original_aspect_ratio", "decrease"),
                                FilterOption("force_divisible_by", "2")], purpose: purpose, origin: origin)
    }

    /// Overlay position expressions of a layer's picture on `canvas`: anchored with the margin
    /// scaled to the picture, or at `x:`/`y:` kept inside it.
    private func layerPosition(_ placement: Placement, on canvas: LayerCanvas) -> (x: String, y: String) {
        let anchored = Self.position(placement, margin: canvas.pixels(placement.margin), outer: ("W", "H"), inner: ("w", "h"))
        return (placement.x.map { "max(0,min(\(canvas.pixels($0)),W-w))" } ?? anchored.0,
                placement.y.map { "max(0,min(\(canvas.pixels($0)),H-h))" } ?? anchored.1)
    }

    // MARK: - Renditions

    /// One copy of the scene per canvas (cropped), then per picture size of that canvas
    /// (scaled), on which the layers are drawn at the size that is encoded; then per frame
    /// rate, in the encoder's pixel format. Renditions with equal canvas and size share one
    /// drawing of the layers.
    private mutating func splitVideo(_ scene: GraphPad, renditions: RenditionTable, log: DiagnosticLog) {
        let keys = renditions.keys
        let audience = renditions.renditions(audio: false).map(\.destinations)
        struct Picture: Hashable { var crop: CanvasCrop?, width: Int, height: Int }
        func picture(_ key: RenditionTable.Key) -> Picture { Picture(crop: key.crop, width: key.video.width, height: key.video.height) }
        var canvases: [CanvasCrop?] = [], pictures: [Picture] = []
        for key in keys {
            if !canvases.contains(key.crop) { canvases.append(key.crop) }
            if !pictures.contains(picture(key)) { pictures.append(picture(key)) }
        }
        let names = spec.layers.indices.map { "layer \($0 + 1)" }
        let layerFonts = zip(spec.layers, names).map { font(of: $0, named: $1, log: log) }
        let canvasPads = split(scene, into: canvases.count, filter: "split", purpose: "one copy per canvas", label: "canvas")
        for (canvas, canvasPad) in zip(canvases, canvasPads) {
            let sizes = pictures.filter { $0.crop == canvas }
            var cropping: [Filter] = []
            var canvasSize = (width, height)
            if let crop = canvas {
                cropping.append(Filter("crop", [FilterOption("w", String(crop.width)), FilterOption("h", String(crop.height)),
                                                FilterOption("x", String(crop.x)), FilterOption("y", String(crop.y))],
                                       purpose: "\(crop.aspect) crop"))
                canvasSize = (crop.width, crop.height)
            }
            func scaling(to size: Picture) -> [Filter] {
                guard (size.width, size.height) != canvasSize else { return [] }
                return [Filter("scale", [FilterOption("w", String(size.width)), FilterOption("h", String(size.height))], purpose: "rendition size")]
            }
            // One size: crop and scale in one chain; several: crop once, then scale each copy.
            var source = canvasPad
            if sizes.count == 1, !(cropping + scaling(to: sizes[0])).isEmpty {
                source = chain([canvasPad], cropping + scaling(to: sizes[0]), cropping.isEmpty ? "sized" : "cropped")
            } else if sizes.count > 1, !cropping.isEmpty {
                source = chain([canvasPad], cropping, "cropped")
            }
            let sizePads = split(source, into: sizes.count, filter: "split", purpose: "one copy per picture size", label: "size")
            for (size, sizePad) in zip(sizes, sizePads) {
                var pad = sizes.count > 1 && !scaling(to: size).isEmpty ? chain([sizePad], scaling(to: size), "sized") : sizePad
                let members = keys.indices.filter { picture(keys[$0]) == size }
                let layerCanvas = LayerCanvas(width: size.width, height: size.height, sceneWidth: width, sceneHeight: height,
                                              destinations: members.flatMap { audience[$0] })
                let index = pictures.firstIndex(of: size)!
                for (layer, (name, font)) in zip(spec.layers.indices, zip(names, layerFonts)) {
                    pad = draw(layer, named: name, font: font, over: pad, on: layerCanvas, picture: index, of: pictures.count, log: log)
                }
                splitRates(pad, for: members, of: keys)
            }
        }
    }

    /// One copy of a picture `pad` per frame rate of the renditions `members` (indices in
    /// `keys`), in the encoder's pixel format, split once more per encoder of that rate.
    private mutating func splitRates(_ pad: GraphPad, for members: [Int], of keys: [RenditionTable.Key]) {
        var rates: [Int] = []
        for member in members where !rates.contains(keys[member].video.fps) { rates.append(keys[member].video.fps) }
        let ratePads = split(pad, into: rates.count, filter: "split", purpose: "one copy per frame rate", label: "rate")
        for (rate, ratePad) in zip(rates, ratePads) {
            var filters: [Filter] = []
            if rate != fps {
                filters.append(Filter("fps", [FilterOption(nil, String(rate))], purpose: "rendition frame rate"))
            }
            filters.append(Filter("format", [FilterOption(nil, "yuv420p")], purpose: "encoder pixel format"))
            let users = members.filter { keys[$0].video.fps == rate }
            if users.count == 1 {
                chains.append(FilterChain([ratePad], filters, [.rendition(users[0], .video)]))
            } else {
                chains.append(FilterChain([ratePad], filters + [Filter("split", [FilterOption(nil, String(users.count))], purpose: "one copy per encoder")],
                                          users.map { .rendition($0, .video) }))
            }
        }
    }

    /// Feeds `input`, a sound, to `encoders`, one copy per sample rate and layout.
    private mutating func splitAudio(_ input: GraphPad, to encoders: [SoundEncoder]) {
        hasAudio = true
        struct Sound: Hashable { var rate: Int, channels: Int }
        func format(of encoder: SoundEncoder) -> Sound { Sound(rate: encoder.audio.sampleRate, channels: encoder.audio.channels) }
        var sounds: [Sound] = []
        for encoder in encoders where !sounds.contains(format(of: encoder)) { sounds.append(format(of: encoder)) }
        let pads = split(input, into: sounds.count, filter: "asplit", purpose: "one copy per sample format", label: "sound")
        for (sound, pad) in zip(sounds, pads) {
            let filters = [
                // async=1 fills gaps with silence and trims overlaps when a live input's
                // timestamps jump (a reconnecting camera), keeping the sound continuous.
                Filter("aresample", [FilterOption(nil, String(sound.rate)), FilterOption("async", "1")], purpose: "encoder sample rate, continuous"),
                Filter("aformat", [FilterOption("sample_fmts", "fltp"), FilterOption("channel_layouts", sound.channels == 1 ? "mono" : "stereo")],
                       purpose: "encoder sample format"),
            ]
            let users = encoders.filter { format(of: $0) == sound }.map(\.pad)
            if users.count == 1 {
                chains.append(FilterChain([pad], filters, users))
            } else {
                chains.append(FilterChain([pad], filters + [Filter("asplit", [FilterOption(nil, String(users.count))], purpose: "one copy per encoder")], users))
            }
        }
    }

    /// Copy `copy` of an input pad that `count` canvases read (split once, on first use).
    private mutating func shared(_ pad: GraphPad, copy: Int, of count: Int) -> GraphPad {
        if count == 1 { return pad }
        if let copies = sharedCopies[pad] { return copies[copy] }
        let copies = split(pad, into: count, filter: pad.media == .audio ? "asplit" : "split", purpose: "one copy per canvas", label: "copy")
        sharedCopies[pad] = copies
        return copies[copy]
    }

    /// `count` copies of `pad` (the pad itself when one is enough).
    mutating func split(_ pad: GraphPad, into count: Int, filter: String, purpose: String, label: String) -> [GraphPad] {
        guard count > 1 else { return [pad] }
        let outputs = (0..<count).map { _ in GraphPad.link(nextLabel(label)) }
        chains.append(FilterChain([pad], [Filter(filter, [FilterOption(nil, String(count))], purpose: purpose)], outputs))
        if let origin = stillOrigin[pad] { for output in outputs { stillOrigin[output] = origin } }
        return outputs
    }

    // MARK: - Pictures and inputs

    /// Whether `pad` is an input's own moving pictures (a camera, a file, a test pattern), which
    /// a kernel can process before the graph; stills are processed once inside it.
    private func isMovingInput(_ pad: GraphPad) -> Bool {
        guard stillOrigin[pad] == nil, case .input(let index, .video) = pad, index < inputs.count else { return false }
        if case .file(_, _, true) = inputs[index].kind { return false }
        return true
    }

    /// A chain of `filters` reading input `pad` after `work`: done by the engine's kernel on a
    /// moving input (``SourceKernel``), by libavfilter's equivalent at the chain's start on a
    /// still (processed once there).
    private mutating func chain(_ pad: GraphPad, after work: SourceKernel.Work, purpose: String, origin: SourceLocation,
                                _ filters: [Filter], _ label: String) -> GraphPad {
        guard isMovingInput(pad) else { return chain([pad], work.filters(purpose: purpose, origin: origin) + filters, label) }
        let output = chain([pad], filters, label)
        kernels.append(SourceKernel(pad: pad, work: work, consumer: output, purpose: purpose, origin: origin))
        return output
    }

    private func scaleToHeight(_ height: Int, purpose: String, origin: SourceLocation) -> Filter {
        Filter("scale", [FilterOption("w", "-2"), FilterOption("h", String(height))], purpose: purpose, origin: origin)
    }

    private func fit(purpose: String, origin: SourceLocation) -> [Filter] {
        [
            Filter("scale", [FilterOption("w", String(width)), FilterOption("h", String(height)), FilterOption("force_original_aspect_ratio", "decrease")],
                   purpose: purpose, origin: origin),
            Filter("pad", [FilterOption("w", String(width)), FilterOption("h", String(height)), FilterOption("x", "(ow-iw)/2"), FilterOption("y", "(oh-ih)/2")],
                   purpose: "letterbox if needed", origin: origin),
            Filter("setsar", [FilterOption(nil, "1")], purpose: "square pixels", origin: origin),
        ]
    }

    /// A picture scaled and cropped to cover the whole canvas.
    private mutating func cover(_ visual: VisualSpec, origin: SourceLocation) -> GraphPad {
        if case .color(let color) = visual {
            let hex = FFmpegCommand.color(color)
            let index = addInput(name: "color:" + hex.dropFirst(2),
                                 kind: .lavfi("color=c=" + hex + ":size=\(width)x\(height):rate=\(fps)"),
                                 video: VideoFormat(width: width, height: height, fps: fps))
            return .input(index, .video)
        }
        return chain([visualPad(visual, origin: origin)], [
            Filter("scale", [FilterOption("w", String(width)), FilterOption("h", String(height)), FilterOption("force_original_aspect_ratio", "increase")],
                   purpose: "cover the canvas", origin: origin),
            Filter("crop", [FilterOption("w", String(width)), FilterOption("h", String(height))], purpose: "trim to the canvas", origin: origin),
            Filter("setsar", [FilterOption(nil, "1")], purpose: "square pixels", origin: origin),
        ], "background")
    }

    private mutating func visualPad(_ visual: VisualSpec, origin: SourceLocation) -> GraphPad {
        switch visual {
        case .image(let path): return stillPad(path)
        case .video(let path, let loop):
            if let pad = videoPads["asset:" + path.path] { return pad }
            let index = addInput(name: "asset:" + path.path, kind: .file(path: path.path, loop: loop, still: false), video: nil, realtime: true,
                                 origin: path.location)
            videoPads["asset:" + path.path] = .input(index, .video)
            return .input(index, .video)
        case .source(let name): return videoPad(named: name.value)
        case .color: return cover(visual, origin: origin)
        }
    }

    private mutating func stillPad(_ path: AssetPath) -> GraphPad {
        if let pad = videoPads["asset:" + path.path] { return pad }
        let index = addInput(name: "asset:" + path.path, kind: .file(path: path.path, loop: false, still: true), video: nil, realtime: true,
                             origin: path.location)
        videoPads["asset:" + path.path] = .input(index, .video)
        stillOrigin[.input(index, .video)] = index
        return .input(index, .video)
    }

    private mutating func videoPad(named name: String) -> GraphPad {
        if let pad = videoPads[name] { return pad }
        // Validation reports an unknown source; the graph is not built then.
        guard let source = spec.source(name) else { return .link("missing:\(name)") }
        usedSources.insert(name)
        let index = openInput(source)
        videoPads[name] = .input(index, .video)
        return .input(index, .video)
    }

    mutating func audioPad(_ source: SourceSpec) -> GraphPad {
        if let pad = audioPads[source.name] { return pad }
        usedSources.insert(source.name)
        let pad: GraphPad
        if case .test(_, let tone, _) = source.kind {
            let index = addInput(name: source.name, kind: .lavfi("sine=frequency=\(FFmpegCommand.number(tone ?? 1000)):sample_rate=48000"), video: nil,
                                 audio: AudioFormat(sampleRate: 48000, channels: 1))
            pad = .input(index, .audio)
        } else {
            // Sound is compiled last: a source whose pictures nothing drew is opened for its sound alone.
            let soundOnly = videoPads[source.name] == nil
            guard let index = videoPad(named: source.name).input else { return .link("missing:\(source.name)") }
            inputs[index].audio = AudioFormat(sampleRate: 48000, channels: 2)
            if soundOnly { inputs[index].video = nil }
            pad = .input(index, .audio)
        }
        audioPads[source.name] = pad
        return pad
    }

    /// Opens `source` as a new input (a still image marked as one) and returns its index.
    private mutating func openInput(_ source: SourceSpec) -> Int {
        let declared = source.size.map { VideoFormat(width: $0.width, height: $0.height, fps: source.fps ?? fps) }
        switch source.kind {
        case .test(let pattern, _, let color):
            let size = source.size ?? PixelSize(width: width, height: height)
            let rate = source.fps ?? fps
            let graph = pattern == "color"
                ? "color=c=" + FFmpegCommand.color(color ?? 0x202020) + ":size=\(size):rate=\(rate)"
                : "\(pattern)=size=\(size):rate=\(rate)"
            return addInput(name: source.name, kind: .lavfi(graph), video: VideoFormat(width: size.width, height: size.height, fps: rate))
        case .file(let path, let loop):
            let still = source.isStillImage
            let index = addInput(name: source.name, kind: .file(path: path.path, loop: loop && !still, still: still), video: declared, realtime: true,
                                 origin: path.location)
            if still { stillOrigin[.input(index, .video)] = index }
            return index
        case .network(let url, let timeout):
            let options = url.hasPrefix("rtmp") ? [FormatOption("rw_timeout", String(timeout * 1000))] : [FormatOption("timeout", String(timeout * 1000))]
            return addInput(name: source.name, kind: .network(url: url), video: declared, options: options, realtime: false, loss: timeout)
        case .listen(let url, let timeout):
            let options = url.hasPrefix("rtmp") ? [FormatOption("listen", "1")] : [FormatOption("mode", "listener")]
            return addInput(name: source.name, kind: .listen(url: url), video: declared, options: options, realtime: false, loss: timeout)
        case .device(let path, let format):
            return addInput(name: source.name, kind: .device(path: path, format: format), video: declared, realtime: false)
        }
    }

    private mutating func addInput(name: String, kind: PlannedInput.Kind, video: VideoFormat?, audio: AudioFormat? = nil,
                                   options: [FormatOption] = [], realtime: Bool = true, loss: Int? = nil, origin: SourceLocation? = nil) -> Int {
        let index = inputs.count
        let lossAfter = loss ?? spec.inputLoss.afterMs
        inputs.append(PlannedInput(index: index, name: name, kind: kind, options: options, video: audio == nil ? (video ?? VideoFormat(width: width, height: height, fps: fps)) : nil,
                                   audio: audio, realtime: realtime, lossTimeoutMs: lossAfter,
                                   origin: origin ?? spec.source(name)?.location))
        return index
    }

    // MARK: - Helpers

    mutating func chain(_ inputs: [GraphPad], _ filters: [Filter], _ label: String) -> GraphPad {
        let output = GraphPad.link(nextLabel(label))
        chains.append(FilterChain(inputs, filters, [output]))
        if inputs.count == 1, let origin = stillOrigin[inputs[0]] { stillOrigin[output] = origin }
        return output
    }

    private mutating func nextLabel(_ base: String) -> String {
        let count = labels[base, default: 0]
        labels[base] = count + 1
        return count == 0 ? base : "\(base)\(count + 1)"
    }

    private mutating func overlayPad(_ top: GraphPad, on base: GraphPad, _ placement: Placement,
                                     purpose: String, origin: SourceLocation, label: String) -> GraphPad {
        overlayPad(top, on: base, at: Self.position(placement, margin: placement.margin, outer: ("W", "H"), inner: ("w", "h")),
                   purpose: purpose, origin: origin, label: label)
    }

    /// `drawing`: the layer (and the picture of its canvas) the overlay draws, which makes it
    /// addressable by a running graph (see ``addressable(_:layer:picture:)``).
    private mutating func overlayPad(_ top: GraphPad, on base: GraphPad, at position: (x: String, y: String),
                                     purpose: String, origin: SourceLocation, label: String,
                                     drawing layer: (index: Int, picture: Int)? = nil) -> GraphPad {
        let (x, y) = position
        // A still base under a moving picture is processed once and repeated like any overlaid
        // still, the moving picture setting the pace (scaling the studio picture to 1080p for
        // every frame cost more than keying the person). Under another still it is read as a
        // paced stream instead: something has to set the pace.
        let baseProducer = chains.lastIndex(where: { $0.outputs == [base] })
        let frozenBase = stillOrigin[base].map { !baseStills.contains($0) } == true && stillOrigin[top] == nil && baseProducer != nil
        if frozenBase, let producer = baseProducer {
            // Converted once, before `loop`, to the format overlay blends onto.
            chains[producer].filters.append(Filter("format", [FilterOption(nil, "yuv420p")], purpose: "overlay's native format", origin: origin))
            frozenPads.append((base, isBase: true))
        } else if let origin = stillOrigin[base] {
            baseStills.insert(origin)
        }
        // overlay blends yuva420p onto yuv420p; converting here (before any `loop`) means a
        // repeated still is converted once, not on every frame by an auto-inserted scaler.
        if let producer = chains.lastIndex(where: { $0.outputs == [top] }) {
            chains[producer].filters.append(Filter("format", [FilterOption(nil, "yuva420p")], purpose: "overlay's native format", origin: origin))
        }
        var options = [FilterOption("x", x), FilterOption("y", y)]
        if stillOrigin[top] != nil {
            frozenPads.append((top, isBase: false))
        }
        if stillOrigin[top] != nil || frozenBase {
            // A repeated still never ends: the scene ends when the moving picture does.
            options.append(FilterOption("shortest", "1"))
        }
        let overlay = Filter("overlay", options, purpose: purpose, origin: origin)
        return chain([base, top], [layer.map { addressable(overlay, layer: $0.index, picture: $0.picture) } ?? overlay], label)
    }

    /// Overlay/drawtext position expressions for a placement.
    static func position(_ placement: Placement, margin: Int, outer: (String, String), inner: (String, String)) -> (String, String) {
        let (W, H) = outer, (w, h) = inner
        let words = placement.position.split(separator: "-")
        let horizontal = words.contains("left") ? "\(margin)" : words.contains("right") ? "\(W)-\(w)-\(margin)" : "(\(W)-\(w))/2"
        let vertical = words.contains("top") ? "\(margin)" : words.contains("bottom") ? "\(H)-\(h)-\(margin)" : "(\(H)-\(h))/2"
        return (placement.x.map(String.init) ?? horizontal, placement.y.map(String.init) ?? vertical)
    }
}
