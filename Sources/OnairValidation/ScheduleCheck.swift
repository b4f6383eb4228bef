import Foundation
import OnairConfig
import OnairPlanner

/// Rule 9: a pipeline's schedule names what the pipeline has, plays clips that decode, and
/// resolves into a timeline that makes sense for the run: one action on a thing at a time, a
/// layer hidden only while shown, nothing due before the run starts or after it ends. Every
/// problem is reported at the action that writes it, with a fix.
public enum ScheduleCheck {
    /// Checks `spec`'s schedule for a run as `start` says; returns the timeline, resolved with
    /// the clips' probed lengths (nil when the pipeline has no schedule).
    @discardableResult
    public static func run(_ spec: PipelineSpec, start: RunStart, projectRoot: URL, log: DiagnosticLog) -> ShowTimeline? {
        guard !spec.schedule.isEmpty else { return nil }
        checkNames(spec, log: log)
        let durations = checkClips(spec, projectRoot: projectRoot, log: log)
        let timeline = ShowTimeline(spec, clock: start.clock(for: spec), clipDurations: durations)
        checkTimeline(timeline, spec: spec, start: start, log: log)
        return timeline
    }

    /// Every name an action writes is one the pipeline defines.
    static func checkNames(_ spec: PipelineSpec, log: DiagnosticLog) {
        let layers = spec.layers.compactMap(\.name?.value)
        let unnamedFix = spec.layers.contains { $0.name == nil }
            ? "give the layer a name in 'layers:' (name: lower-third) and show: it by that name" : "define it under 'layers:' with a name:"
        let names = NameCheck(log: log)
        for action in spec.schedule {
            switch action.kind {
            case .overlay(let name): names.check(name, in: spec.overlays.map(\.name), "overlay combination", fix: "define it under 'overlays:'")
            case .show(let name, _), .hide(let name, _): names.check(name, in: layers, "layer", fix: unnamedFix)
            case .play(let clip): names.check(clip.source, in: spec.sources.map(\.name), "source", fix: "define it under 'sources:'")
            case .mute(let mute), .unmute(let mute): names.check(mute.source, in: spec.sources.map(\.name), "source", fix: "define it under 'sources:'")
            case .start(let name), .stop(let name): names.check(name, in: spec.destinations.map(\.name), "destination", fix: "define it under 'destinations:'")
            case .set(let assignments): checkVariables(assignments, spec: spec, log: log)
            case .end: break
            }
        }
        checkActionNames(spec, log: log)
    }

    /// Looks names up among those defined, reporting an unknown one with "did you mean".
    struct NameCheck {
        let log: DiagnosticLog

        func check(_ name: Located<String>, in known: [String], _ what: String, fix: String) {
            guard !known.contains(name.value) else { return }
            log.error("unknown-reference", "unknown \(what) '\(name.value)' in the schedule", at: name.location,
                      suggestion: Suggestion.phrase(for: name.value, in: known, listing: false) ?? fix)
        }
    }

    /// A variable `set:` writes is shown by some text layer (`{NAME}`), or it changes nothing.
    private static func checkVariables(_ assignments: [TextAssignment], spec: PipelineSpec, log: DiagnosticLog) {
        let shown = Set(spec.layers.compactMap(\.text).flatMap { LayerSpec.placeholders(in: $0.value) })
        for assignment in assignments where !shown.contains(assignment.variable.value) {
            let candidates = shown.filter { !LayerSpec.placeholders.contains($0) || $0 == "title" }.sorted()
            log.warning("unused-variable", "no text layer shows {\(assignment.variable.value)}", at: assignment.variable.location,
                        suggestion: Suggestion.phrase(for: assignment.variable.value, in: candidates, listing: false)
                            ?? "write {\(assignment.variable.value)} in a text layer's text, or remove it")
        }
    }

    /// Action names are unique, and each `{countdown:NAME}` of a text layer names an action.
    private static func checkActionNames(_ spec: PipelineSpec, log: DiagnosticLog) {
        var seen: [String: SourceLocation] = [:]
        for name in spec.schedule.compactMap(\.name) {
            if let first = seen[name.value] {
                log.error("duplicate-name", "two actions are called '\(name.value)' (the other at \(first))", at: name.location,
                          suggestion: "give each action its own name")
            } else {
                seen[name.value] = name.location
            }
        }
        let names = spec.schedule.compactMap(\.name?.value)
        for text in spec.layers.compactMap(\.text) {
            for placeholder in LayerSpec.placeholders(in: text.value) where placeholder.hasPrefix(LayerSpec.countdownPrefix) {
                let name = String(placeholder.dropFirst(LayerSpec.countdownPrefix.count))
                guard !names.contains(name) else { continue }
                log.error("unknown-reference", "{\(placeholder)} names no action of the schedule", at: text.location,
                          suggestion: Suggestion.closest(to: name, in: names).map { "did you mean {countdown:\($0)}?" }
                              ?? "give the action it counts down to a name: name: \(name)")
            }
        }
    }

    /// Each clip decodes, and has sound when the source it stands in for is heard on air (the
    /// broadcast's sound, a destination's, or a source of a mix among them). Returns the clips'
    /// lengths (ms) by project-relative path.
    static func checkClips(_ spec: PipelineSpec, projectRoot: URL, log: DiagnosticLog) -> [String: Int] {
        var durations: [String: Int] = [:]
        let heard = spec.heardSources(main: Planner.soundSource(of: spec) ?? spec.audio?.value)
        for action in spec.schedule {
            guard case .play(let clip) = action.kind, let probe = ClipProbe.probe(projectRoot.resolvingPlanPath(clip.clip.path)) else { continue }
            if let problem = probe.problem {
                log.error("media", "\(clip.clip.written) \(problem)", at: clip.clip.location,
                          suggestion: "check that it is a video FFmpeg can decode (ffprobe shows what it sees in the file)")
                continue
            }
            durations[clip.clip.path] = probe.durationMs
            if !probe.hasAudio, heard.contains(clip.source.value) {
                log.warning("clip-without-sound", "\(clip.clip.written) has no sound, and '\(clip.source.value)' is heard on air: silence in its place while it plays",
                            at: clip.clip.location, suggestion: "give the clip a sound track (even silence), or play it in a source whose sound is not broadcast")
            }
        }
        return durations
    }
}
