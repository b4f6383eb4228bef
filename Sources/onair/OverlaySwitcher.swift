import Foundation
import OnairConfig
import OnairEngine
import OnairPlanner

/// Lets the operator put another overlay combination on air during a run: a line on standard
/// input with the combination's name or number (as listed at the start) switches to it.
///
/// Every combination is planned and checked before the run starts, so a switch is only a
/// swap of filter graphs; one that cannot be planned is listed with the reason and refused.
final class OverlaySwitcher: @unchecked Sendable {
    /// A combination, in the order the pipeline writes them.
    struct Choice {
        var name: String
        var plan: PipelinePlan?
        /// Why it cannot go on air, when it cannot.
        var problem: String?
    }

    let choices: [Choice]

    /// Plans every combination of `pipeline`; `onAir` is the plan the run starts with, planned
    /// from `pipeline` itself (its `active:` is the combination on air).
    ///
    /// The sound stays what it is at the start: without `audio:`, a combination's sound would
    /// come from its own lead source, and one without sound (slides after the camera) would
    /// need other encoders — so the combinations switched to keep the starting sound instead.
    init(pipeline: PipelineSpec, onAir: PipelinePlan, planner: CheckedPlanner) {
        choices = pipeline.overlays.map { overlay in
            if overlay.name == onAir.activeOverlay { return Choice(name: overlay.name, plan: onAir) }
            let log = DiagnosticLog()
            var plan = pipeline.switchedLive(to: overlay.name).flatMap { planner.plan($0, log: log) }
            let problem = log.sorted.first { $0.severity == .error }
            if problem != nil { plan = nil }
            return Choice(name: overlay.name, plan: plan,
                          problem: problem.map { "\($0.message) (\($0.location))" } ?? (plan == nil ? "it does not compile" : nil))
        }
    }

    /// Whether there is anything to switch between.
    var isUseful: Bool { choices.count > 1 }

    /// How to switch, for the operator.
    func hint(onAir: String) -> String {
        "to switch overlay, type its number or name and Enter: "
            + choices.enumerated().map { index, choice in
                "\(index + 1) \(choice.name)" + (choice.name == onAir ? " (on air)" : choice.problem == nil ? "" : " (unavailable)")
            }.joined(separator: " · ")
    }

    /// The plan a typed line asks for, or what to tell the operator.
    func plan(for line: String) -> Result<PipelinePlan, SwitchRefusal> {
        let word = line.trimmingCharacters(in: .whitespaces)
        let choice = Int(word).flatMap { $0 >= 1 && $0 <= choices.count ? choices[$0 - 1] : nil }
            ?? choices.first { $0.name == word }
        guard let choice else {
            return .failure(SwitchRefusal(description: "no overlay combination '\(word)'"
                + (Suggestion.phrase(for: word, in: choices.map(\.name)).map { "; \($0)" } ?? "")))
        }
        guard let plan = choice.plan else {
            return .failure(SwitchRefusal(description: "'\(choice.name)' cannot go on air: \(choice.problem ?? "it does not compile")"))
        }
        return .success(plan)
    }

    /// Puts the combination `line` names on air in `run`: what is on air now, or why not.
    func switchOverlay(_ line: String, in run: PipelineRun) -> Result<String, SwitchRefusal> {
        switch plan(for: line) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let plan):
            do {
                try run.switchOverlay(to: plan)
                return .success("on air: \(run.overlayOnAir)")
            } catch {
                return .failure(SwitchRefusal(description: "\(error)"))
            }
        }
    }

    /// Reads lines from standard input on its own thread until it closes, switching `run`;
    /// refusals are told on the console (the switch itself is an `overlay.applied` event).
    func listen(to run: PipelineRun, console: Console) {
        let thread = Thread { [self] in
            while let line = readLine() {
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                if case .failure(let refusal) = switchOverlay(line, in: run) { console.note(refusal.description) }
            }
        }
        thread.name = "onair.operator"
        thread.start()
    }

    /// Serves a control-socket request (`switch COMBINATION`) for `run`: `ok …` or `error …`.
    func answer(_ request: String, in run: PipelineRun) -> String {
        let words = request.split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2, words[0] == "switch" else { return "error unknown request (expected: switch COMBINATION)" }
        switch switchOverlay(words[1], in: run) {
        case .success(let onAir): return "ok " + onAir
        case .failure(let refusal): return "error " + refusal.description
        }
    }
}

/// Why a typed switch request was refused.
struct SwitchRefusal: Error, CustomStringConvertible {
    var description: String
}
