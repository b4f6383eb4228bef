import Foundation
import OnairConfig
import OnairFonts

/// Compiles a decoded pipeline into a `PipelinePlan`, checking it against the platforms it
/// streams to. Pure Swift: nothing here touches FFmpeg.
public struct Planner: Sendable {
    /// Whether a missing stream key is a warning (validating in CI, where keys are absent) or an
    /// error (about to go live).
    public enum Mode: Sendable {
        case validate, run
    }

    /// The platforms destinations may name.
    public var catalogue: PlatformCatalogue
    /// Validate or run.
    public var mode: Mode
    /// Why a destination's stream key can't be read (nil: it can), given its reference and
    /// what to call it: the one secret reader's words (``readingSecrets(environment:projectRoot:)``),
    /// injected so that the planner reads no file itself and tests can say.
    public var secretProblem: @Sendable (SecretReference, _ what: String) -> String?
    /// Where text layers' fonts are found and measured, to fit text to every picture.
    public var fonts: FontBook
    /// The folder project-relative font files are read from (nil: the working directory).
    public var projectRoot: URL?
    /// The moment of the show the graph is planned for: its layers shown or hidden, its text
    /// variables, `{next}` and the countdowns' targets (nil: no schedule, or its start unknown).
    public var moment: ShowMoment?

    /// Creates a planner.
    public init(
        catalogue: PlatformCatalogue, mode: Mode,
        secretProblem: @escaping @Sendable (SecretReference, _ what: String) -> String?, fonts: FontBook = .shared, projectRoot: URL? = nil
    ) {
        self.catalogue = catalogue
        self.mode = mode
        self.secretProblem = secretProblem
        self.fonts = fonts
        self.projectRoot = projectRoot
    }

    /// Checks `spec` and, when it has no errors, compiles it. Every problem goes to `log`; the
    /// plan's `warnings` repeat the warnings that concern this pipeline.
    public func plan(_ spec: PipelineSpec, log: DiagnosticLog) -> PipelinePlan? {
        let errorsBefore = log.errorCount
        let warningsBefore = log.all.count
        var targets = spec.destinations.compactMap { destination in
            DestinationTarget.resolve(destination, scene: spec.quality, ladder: spec.ladder(of: destination), catalogue: catalogue, log: log)
        }
        // A destination that names the pipeline's own sound shares its renditions.
        let mainSound = SceneCompiler.soundName(of: spec)
        for index in targets.indices where targets[index].sound == mainSound { targets[index].sound = nil }
        var rules = DestinationRules(spec: spec, mode: mode, secretProblem: secretProblem, log: log)
        rules.check(targets)
        checkRungs(of: targets, in: spec, rules: rules, log: log)
        guard spec.isComplete, log.errorCount == errorsBefore, targets.count == spec.destinations.count else { return nil }

        var compiler = SceneCompiler(spec: spec, fonts: fonts, projectRoot: projectRoot, moment: moment)
        let renditions = RenditionTable(targets: targets)
        let graph = compiler.compile(renditions: renditions, log: log)
        guard log.errorCount == errorsBefore else { return nil }

        let outputs = targets.map { $0.plannedOutput(rendition: renditions.id(for: $0), hasAudio: compiler.hasAudio) }
        let voice = plannedVoice(of: spec, hasAudio: compiler.hasAudio, log: log)
        let warnings = log.all[warningsBefore...].filter { $0.severity == .warning }
        var plan = PipelinePlan(
            pipeline: spec.name, title: spec.title, activeOverlay: spec.active.value,
            canvas: spec.quality.size, fps: spec.quality.fps.value,
            inputs: compiler.inputs, graph: graph, renditions: renditions.renditions(audio: compiler.hasAudio),
            outputs: outputs, inputLoss: InputLossPlan(spec.inputLoss),
            egressBitrate: outputs.filter { $0.kind == .rtmp || $0.kind == .srt }.map(\.bitrate).reduce(0, +),
            diskBitrate: outputs.filter { $0.kind == .recording || $0.kind == .hls }.map(\.bitrate).reduce(0, +),
            failover: compiler.failover,
            unusedSources: spec.sources.map(\.name).filter { !compiler.usedSources.contains($0) },
            warnings: Array(warnings).sorted(by: Diagnostic.reportOrder))
        plan.voice = voice
        plan.mixes = compiler.compiledMixes
        Self.watchSound(in: &plan, spec: spec)
        plan.latency = spec.latency
        if spec.latency == .low { LowLatency.apply(to: &plan) }
        plan.cost = CostEstimator().estimate(plan, standbyCombinations: spec.overlays.count - 1)
        plan.latencyEstimate = LatencyEstimator().estimate(plan, viewers: Self.viewers(of: targets))
        return plan
    }
}

extension Planner {
    /// Puts each sound's meter, and its mix's dead-air watch (`silence:`), on the first
    /// rendition that carries it.
    static func watchSound(in plan: inout PipelinePlan, spec: PipelineSpec) {
        var watched: Set<String> = []
        let main = SceneCompiler.soundName(of: spec)
        for index in plan.renditions.indices where plan.renditions[index].audio != nil {
            guard let sound = plan.renditions[index].sound ?? main, watched.insert(sound).inserted else { continue }
            let mix = spec.mix(sound)
            if let alert = mix?.silence {
                plan.renditions[index].silenceWatch = SilenceWatchPlan(mix: sound, belowDB: alert.belowDB, afterMs: alert.afterMs)
            }
            let loudness = mix?.loudness
            plan.renditions[index].meter = MeterPlan(mix: sound, ceilingDBTP: loudness?.truePeak ?? -1, targetLUFS: loudness?.target,
                                                     toleranceLU: loudness?.tolerance ?? 2, windowMs: loudness?.windowMs ?? 30_000)
        }
    }

    /// What each platform destination's platform adds from ingest to viewer, in the mode it
    /// declares.
    static func viewers(of targets: [DestinationTarget]) -> [String: ViewerLatency] {
        var viewers: [String: ViewerLatency] = [:]
        for target in targets {
            guard let platform = target.platform else { continue }
            viewers[target.spec.name] = ViewerLatency(platform: platform, mode: target.spec.latencyMode?.value)
        }
        return viewers
    }

    /// The active combination's voice, or nil (with a warning where it is written when there
    /// is no sound to pitch).
    private func plannedVoice(of spec: PipelineSpec, hasAudio: Bool, log: DiagnosticLog) -> PlannedVoice? {
        guard let voice = spec.overlay(spec.active.value)?.voice else { return nil }
        guard hasAudio else {
            log.warning("voice-without-sound", "overlay combination '\(spec.active.value)' has a voice but the pipeline broadcasts no sound",
                        at: voice.location, suggestion: "give a source with sound ('audio:'), or remove 'voice:'")
            return nil
        }
        return PlannedVoice(semitones: voice.semitones, preset: voice.preset)
    }

    /// Checks every rung of each destination's ladder that it does not stream now, as it would
    /// stream with it: any of them may go live once `onair run` has measured the link.
    private func checkRungs(of targets: [DestinationTarget], in spec: PipelineSpec, rules: DestinationRules, log: DiagnosticLog) {
        for target in targets {
            guard let ladder = target.ladder else { continue }
            for rung in ladder.rungs where rung.presetName != target.quality.presetName {
                var variant = target.spec
                variant.quality = rung
                guard let other = DestinationTarget.resolve(variant, scene: spec.quality, catalogue: catalogue, log: log) else { continue }
                rules.checkPlatform(of: other, rung: rung.presetName)
            }
        }
    }

    /// ``secretProblem`` as a run reads its keys: from `environment`, or a private file
    /// relative to the project folder `root` (absolute and `~/…` paths as written).
    public static func readingSecrets(environment: [String: String], projectRoot root: URL) -> @Sendable (SecretReference, String) -> String? {
        { reference, what in
            do {
                _ = try reference.read(environment: environment, projectRoot: root, what: what)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// The source whose sound `spec` broadcasts with its `active:` combination on air: the one
    /// `audio:` names, else the combination's lead source when it has sound; nil for none.
    public static func soundSource(of spec: PipelineSpec) -> String? {
        SceneCompiler.soundName(of: spec)
    }
}

extension InputLossPlan {
    init(_ policy: InputLossPolicy) {
        afterMs = policy.afterMs
        holdLastFrameMs = policy.holdLastFrameMs
        switch policy.slate {
        case .image(let path), .video(let path, _): slatePath = path.path; slateOrigin = path.location; slateColor = nil
        case .color(let color): slatePath = nil; slateOrigin = nil; slateColor = color
        case .source: slatePath = nil; slateOrigin = nil; slateColor = 0
        }
    }
}
