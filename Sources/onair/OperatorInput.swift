import Foundation
import OnairControl
import OnairEngine
import OnairThreads

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

    /// Switches `run` to each combination typed, until standard input closes or the task is
    /// cancelled (the run has ended).
    static func steer(_ run: PipelineRun) async {
        for await line in lines() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                _ = try await run.switchOverlay(to: line)
            } catch {
                run.note(error.description)
            }
        }
    }

    /// Standard input's lines, read on a thread of their own: reading a terminal blocks, which
    /// a task of the concurrency pool must not. The thread holds only the stream's end: it
    /// waits on standard input until a line comes or it closes, often after the run has ended,
    /// and then finds the stream gone and returns.
    private static func lines() -> AsyncStream<String> {
        let (lines, feed) = AsyncStream.makeStream(of: String.self)
        startThread(named: "onair.operator") {
            while let line = readLine() {
                if case .terminated = feed.yield(line) { return }
            }
            feed.finish()
        }
        return lines
    }
}
