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
        let thread = Thread {
            while let line = readLine() {
                guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
                if case .failure(let refusal) = run.switchOverlayWaiting(to: line) { run.note(refusal.description) }
            }
        }
        thread.name = "onair.operator"
        thread.start()
    }

    /// Serves a control-socket request (`switch COMBINATION`): `ok on air: …` or `error …`.
    static func answer(_ request: String, for run: any RunControl) -> String {
        let words = request.split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2, words[0] == "switch" else { return "error unknown request (expected: switch COMBINATION)" }
        switch run.switchOverlayWaiting(to: words[1]) {
        case .success(let status): return "ok on air: " + (status.overlay ?? words[1])
        case .failure(let refusal): return "error " + refusal.description
        }
    }
}

extension RunControl {
    /// ``switchOverlay(to:)`` for a thread outside Swift concurrency (the terminal, the control
    /// socket): waits for the outcome.
    func switchOverlayWaiting(to name: String) -> Result<RunStatus, OverlaySwitchError> {
        let outcome = Locked<Result<RunStatus, OverlaySwitchError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do throws(OverlaySwitchError) {
                let status = try await switchOverlay(to: name)
                outcome.set(.success(status))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return outcome.value!
    }
}

/// A value shared between threads behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value { lock.withLock { stored } }

    func set(_ value: Value) {
        lock.withLock { stored = value }
    }
}
