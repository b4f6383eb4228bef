import Foundation
import OnairConfig
import OnairFonts
import OnairPlanner

/// What the fuzzer runs for each input: the input's files are put in their project (in memory),
/// the project is loaded and decoded as `onair validate` loads it, every pipeline is planned with each
/// of its overlay combinations on air (as `validate` checks them: started with it, and switched
/// to live), each pipeline's plan as written is rendered in every format, the diagnostics of one
/// input in four are rendered in every report format, and the ``Invariant``s are checked.
///
/// The checks `validate` adds through libav (the filter graph configures, local media decode)
/// belong to the engine and are not run: this target covers the YAML loader, the decoder and the
/// planner, which are pure Swift (and libyaml).
public struct FuzzTarget: Sendable {
    /// The projects inputs are loaded as.
    public let project: FuzzProject
    /// Where text layers' fonts come from: a fixed table of `fontFamilies`, resolved once, so
    /// that a made-up family costs no `fc-match` and is not remembered.
    let fonts: FontBook
    /// The lines of the files every input may quote (the built-in platform catalogue, the
    /// shipped files), split once for the `located` check.
    let fixedLines: [String: [Substring]]

    /// The families the target's fonts know: the one a text layer has by default and its
    /// relatives; any other family is not found (a warning, and the text is not fitted).
    public static let fontFamilies = ["DejaVu Sans", "DejaVu Sans Mono", "DejaVu Serif"]

    /// Creates a target loading inputs as `project`.
    public init(project: FuzzProject) {
        self.project = project
        fonts = FontBook(families: Self.fontFamilies.reduce(into: [:]) { table, family in
            table[family] = FontBook.shared.file(forFamily: family)
        })
        var lines = [PlatformCatalogue.builtinFile: PlatformCatalogue.builtinYAML.sourceLines]
        for (path, file) in project.shipped { lines[path] = String(decoding: file.data, as: UTF8.self).sourceLines }
        fixedLines = lines
    }

    /// What one input gave.
    public struct Outcome: Sendable {
        /// The invariants it broke.
        public var violations: [Violation] = []
        /// Every diagnostic of loading and planning, in report order.
        public var diagnostics: [Diagnostic] = []
        /// The plans compiled, the active combination's first for each pipeline.
        public var plans: [PipelinePlan] = []
    }

    /// Loads and plans one input; an empty input does nothing.
    public func run(_ data: Data) -> Outcome {
        var outcome = Outcome()
        guard let input = FuzzInput(data) else { return outcome }
        let root = project.root
        let log = DiagnosticLog()
        let loaded = Project.load(root: root, displayRoot: "", builtinPlatforms: PlatformCatalogue.builtinNode,
                                  only: input.layout == .presets ? nil : [FuzzProject.pipelineName],
                                  files: project.files(for: input), log: log)
        let planner = Planner(catalogue: PlatformCatalogue(project: loaded), mode: input.mode,
                              secretProblem: Planner.readingSecrets(environment: [:], projectRoot: root), fonts: fonts, projectRoot: root)
        var diagnostics = log.all
        for name in loaded.pipelineNames {
            guard let spec = loaded.pipeline(name) else {
                if log.errorCount == 0 {
                    outcome.violations.append(Violation(.explained, "pipeline '\(name)' was not decoded and the load reported no error"))
                }
                continue
            }
            // Planning twice and rendering (the costliest checks: a third of a valid input's time
            // each) for the combination as written; the others go through the same code.
            for (index, (variant, onAir)) in Self.combinations(of: spec).enumerated() {
                let planLog = DiagnosticLog()
                let plan = planner.plan(variant, log: planLog)
                if plan == nil, planLog.errorCount == 0, variant.isComplete || log.errorCount == 0 {
                    outcome.violations.append(Violation(.explained, "pipeline '\(name)' (\(onAir)) was not planned and nothing reported an error"))
                }
                diagnostics += planLog.all
                guard let plan else { continue }
                outcome.plans.append(plan)
                guard index == 0 else { continue }
                let again = DiagnosticLog()
                if planner.plan(variant, log: again) != plan || again.all != planLog.all {
                    outcome.violations.append(Violation(.deterministic, "pipeline '\(name)' (\(onAir)) planned twice differs"))
                }
                outcome.violations += Self.render(plan, pipeline: "\(name) (\(onAir))")
            }
        }
        var files = loaded.files
        files[PlatformCatalogue.builtinFile] = PlatformCatalogue.builtinYAML
        outcome.violations += Invariant.wordingAndLocation(of: diagnostics, files: files, lines: fixedLines)
        outcome.diagnostics = Array(Set(diagnostics)).sorted(by: Diagnostic.reportOrder)
        if Self.rendersReports(of: data) {
            for format in DiagnosticReport.Format.allCases {
                _ = DiagnosticReport.render(outcome.diagnostics, format: format, files: loaded.files)
            }
        }
        return outcome
    }

    /// Whether the diagnostics of input `data` are rendered in every report format: for one
    /// input in `reportSampling`, chosen by the input's bytes (an FNV-1a hash, the same in every
    /// process, so a finding replays). Rendering quotes every file's lines and took a tenth of
    /// an input's time; its code is simple, and a quarter of the inputs still cover it.
    static func rendersReports(of data: Data) -> Bool {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash % reportSampling == 0
    }

    /// One input in this many has its diagnostics rendered.
    static let reportSampling: UInt64 = 4

    /// The pipeline as planned with each overlay combination on air, as `onair validate` plans
    /// them: as written, then each other combination as `run --overlay` starts with it and, when
    /// the sound differs, as a live switch puts it on air. Each with a phrase saying which.
    static func combinations(of spec: PipelineSpec) -> [(PipelineSpec, String)] {
        var all = [(spec, "'\(spec.active.value)' on air")]
        for overlay in spec.overlays where overlay.name != spec.active.value {
            for (index, way) in spec.waysOnAir(overlay.name).enumerated() {
                all.append((way, index == 0 ? "started with '\(overlay.name)'" : "switched live to '\(overlay.name)'"))
            }
        }
        return all
    }

    /// Renders `plan` in every format `onair plan` prints; a JSON rendering that does not decode
    /// to the same plan is a violation.
    static func render(_ plan: PipelinePlan, pipeline: String) -> [Violation] {
        _ = PlanSummary.render(plan)
        _ = PlanGraphviz.render(plan)
        _ = plan.graph.description(multiline: true)
        _ = FFmpegCommand(plan: plan).shell(multiline: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let decoded = try JSONDecoder().decode(PipelinePlan.self, from: encoder.encode(plan))
            return decoded == plan ? [] : [Violation(.roundTrip, "the plan of pipeline \(pipeline) decodes from its JSON to another plan")]
        } catch {
            return [Violation(.roundTrip, "the plan of pipeline \(pipeline) does not encode and decode as JSON: \(error)")]
        }
    }
}
