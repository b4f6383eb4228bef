import Foundation
import OnairControl
import OnairEngine
import OnairTerminal
import OnairPlanner
import Synchronization

/// Where a run talks to the operator: it follows the run's events and prints them as lines,
/// and on a terminal keeps a live status block redrawn in place; or JSON lines for machines
/// (the run's own `stats` events included). Safe from any task.
final class Console: Sendable {
    private let format: Run.LogFormat
    private let live: Bool
    private let color: Bool
    /// The terminal's settings before the console hid `^C`, restored when the run ends.
    private let savedTerminal: termios?
    private let state = Mutex(State())

    /// What is on screen, and what the live block shows.
    private struct State {
        var drawnLines = 0
        /// The status the block shows (nil: no block).
        var lastStatus: RunStatus?
        /// The run's dashboard, shown in the block (known once the API serves).
        var dashboard: String?
        var terminalRestored = false
    }

    /// Room for frequent events (`libav.log`, `stats`) the console has not written yet: more
    /// than a run emits in a burst; past it they are dropped (counted and said). A lifecycle
    /// event is never dropped.
    private static let eventBuffer = 8192

    init(format: Run.LogFormat) {
        self.format = format
        live = format == .text && Terminal.isInteractive(STDERR_FILENO)
        color = Terminal.wantsColor(fileDescriptor: STDERR_FILENO)
        var saved = termios()
        if live, isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 {
            // Don't echo ^C into the status block; restored when the run ends.
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHOCTL)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
            savedTerminal = saved
        } else {
            savedTerminal = nil
        }
    }

    deinit {
        restoreTerminal()
    }

    /// Shows the run's dashboard at `url` in the live block from now on.
    func show(dashboard url: String) {
        state.withLock { $0.dashboard = url }
    }

    /// The run's events from its first one, with room for a burst: subscribe before the run
    /// starts, then ``follow(_:of:)``.
    static func events(of run: any RunControl) -> EventSubscription {
        run.subscribe(after: 0, options: SubscriptionOptions(subscriber: "console", buffering: .lifecycle(frequentRoom: eventBuffer)))
    }

    /// Writes `events` of `run` until they end (with the run), and on a terminal redraws the
    /// status block every second meanwhile.
    func follow(_ events: EventSubscription, of run: PipelineRun) async {
        await withTaskGroup(of: Void.self) { ticker in
            if live { ticker.addTask { await self.redrawEverySecond(run) } }
            for await numbered in events {
                // The block names the combination on air: show the new one now, not at the next tick.
                switch numbered.event.kind {
                case .overlayApplied, .overlayFailed, .overlayRestored: await refreshStatus(of: run)
                default: break
                }
                write(numbered.event)
            }
            if events.dropped > 0 {
                write(StatusEvent(.runNote(message: "the console could not keep up and skipped \(events.dropped) event(s)")))
            }
            ticker.cancelAll()
        }
    }

    private func redrawEverySecond(_ run: PipelineRun) async {
        while (try? await Task.sleep(for: .seconds(1))) != nil {
            let snapshot = await run.status()
            state.withLock { state in
                state.lastStatus = snapshot
                clearBlock(&state)
                redraw(&state)
            }
        }
    }

    /// Something the operator should know before the run exists (a `run.note` line, text or
    /// JSON): what the measurement at start picked.
    func note(_ message: String) {
        write(StatusEvent(.runNote(message: message)))
    }

    /// A line for the operator on the terminal only (not an event of the run).
    func hint(_ text: String) {
        guard format == .text else { return }
        line("■ " + text)
    }

    /// Leaves the final status block (text) behind, once the run's events are all written.
    func finish(status: RunStatus) {
        restoreTerminal()
        state.withLock { state in
            clearBlock(&state)
            state.lastStatus = nil
            if format == .text {
                for text in StatusBoard.render(status, color: color, width: 100) { writeError(text) }
            }
        }
    }

    private func restoreTerminal() {
        let first = state.withLock { state in
            defer { state.terminalRestored = true }
            return !state.terminalRestored
        }
        guard first, var saved = savedTerminal else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// Brings the live block's status up to date (when one is shown).
    private func refreshStatus(of run: PipelineRun) async {
        let snapshot = await run.status()
        state.withLock { state in if state.lastStatus != nil { state.lastStatus = snapshot } }
    }

    private func write(_ event: StatusEvent) {
        if format == .json {
            state.withLock { _ in FileHandle.standardOutput.write(Data((event.jsonLine(redact: { $0 }) + "\n").utf8)) }
            return
        }
        switch event.kind {
        case .stats:
            // The status block shows them.
            return
        case .libav(let level, _) where !["error", "fatal", "panic"].contains(level):
            // On a terminal, libav's warnings would drown the status; its errors still show.
            return
        case .runStarted:
            line("▶ " + event.detail)
        case .runNote:
            line("■ " + event.detail)
        default:
            line(Self.clock.string(from: event.time) + " " + event.textLine)
        }
    }

    private func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes a line above the live block.
    private func line(_ text: String) {
        state.withLock { state in
            clearBlock(&state)
            writeError(text)
            redraw(&state)
        }
    }

    private static let clock: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()

    /// Erases the live block (under the lock, as the screen is part of the state).
    private func clearBlock(_ state: inout State) {
        guard live, state.drawnLines > 0 else { return }
        FileHandle.standardError.write(Data("\u{1B}[\(state.drawnLines)A\u{1B}[J".utf8))
        state.drawnLines = 0
    }

    /// Draws the live block below the lines written (under the lock).
    private func redraw(_ state: inout State) {
        guard live, let status = state.lastStatus else { return }
        let lines = StatusBoard.render(status, color: color, width: 100, dashboard: state.dashboard)
        for text in lines { writeError(text) }
        state.drawnLines = lines.count
    }
}
