import Foundation
import OnairEngine

/// The operator's keyboard during a run: a line on standard input with an overlay
/// combination's name or number (as listed at the start) puts it on air. Refusals are told
/// to everyone following the run (a `run.note`); the switch itself is an `overlay.applied`.
enum OperatorInput {
    /// How to switch, for the operator: `1 room (on air) · 2 keyed · 3 avatar (unavailable)`.
    static func hint(_ status: RunStatus) -> String {
        "to switch overlay, type its number or name and Enter: "
            + status.overlays.map { choice in
                "\(choice.number) \(choice.name)" + (choice.onAir ? " (on air)" : choice.available ? "" : " (unavailable)")
            }.joined(separator: " · ")
    }

    /// Reads lines from standard input on its own thread until it closes, switching `run`.
    static func listen(to run: PipelineRun) {
        // Weakly: the thread waits on standard input until it closes, often after the run has
        // ended; held strongly, the finished run and all it made stayed allocated until exit.
        let thread = Thread { [weak run] in
            while let line = readLine() {
                guard let run else { return }
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                if case .failure(let refusal) = run.switchOverlayWaiting(to: line) { run.note(refusal.description) }
            }
        }
        thread.name = "onair.operator"
        thread.start()
    }
}

extension RunControl {
    /// ``switchOverlay(to:)`` for a thread outside Swift concurrency (the terminal): waits for
    /// the outcome.
    func switchOverlayWaiting(to name: String) -> Result<RunStatus, OverlaySwitchError> {
        do {
            return .success(try blockingAwait { try await self.switchOverlay(to: name) })
        } catch let error as OverlaySwitchError {
            return .failure(error)
        } catch {
            return .failure(.refused(reason: "\(error)"))
        }
    }
}
