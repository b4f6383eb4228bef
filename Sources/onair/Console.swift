import Foundation
import OnairEngine
import OnairPlanner

/// Where a run talks to the operator: it follows the run's events and prints them as lines,
/// and on a terminal keeps a live status block redrawn in place; or JSON lines for machines
/// (the run's own `stats` events included). Thread-safe.
final class Console: @unchecked Sendable {
    private let format: Run.LogFormat
    private let lock = NSLock()
    private let live: Bool
    private let color: Bool
    private var drawnLines = 0
    private var timer: (any DispatchSourceTimer)?
    private var lastStatus: RunStatus?
    private var run: PipelineRun?
    /// Signalled when the run's event stream has ended and every event was written.
    private let drained = DispatchSemaphore(value: 0)

    /// Room for events the console has not written yet; more than a run emits in a burst, so
    /// that the log loses nothing (what it would lose is counted and said).
    private static let eventBuffer = 8192

    /// The run's dashboard, shown in the live block (known once the API serves).
    private var dashboard: String?

    init(format: Run.LogFormat) {
        self.format = format
        live = format == .text && Terminal.isInteractive(STDERR_FILENO)
        color = Terminal.wantsColor(fileDescriptor: STDERR_FILENO)
        if live, isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &savedTerminal) == 0 {
            // Don't echo ^C into the status block; restored when the run ends.
            var quiet = savedTerminal
            quiet.c_lflag &= ~tcflag_t(ECHOCTL)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
            restoreTerminal = true
        }
    }

    private var savedTerminal = termios()
    private var restoreTerminal = false

    deinit {
        if restoreTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal) }
    }

    /// Shows the run's dashboard at `url` in the live block from now on.
    func show(dashboard url: String) {
        lock.withLock { dashboard = url }
    }

    /// Follows `run`'s events from its first one until it ends, and on a terminal redraws its
    /// status block every second.
    func follow(_ run: PipelineRun) {
        lock.withLock { self.run = run }
        let events = run.subscribe(after: 0, buffer: Self.eventBuffer)
        Task.detached { [self] in
            for await numbered in events {
                // The block names the combination on air: show the new one now, not at the next tick.
                switch numbered.event.kind {
                case .overlayApplied, .overlayFailed, .overlayRestored: await refreshStatus()
                default: break
                }
                write(numbered.event)
            }
            if events.dropped > 0 {
                write(StatusEvent(.runNote(message: "the console could not keep up and skipped \(events.dropped) event(s)")))
            }
            drained.signal()
        }
        guard live else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        // The handler reads the run through `self.run`, which `finish` clears: a tick that is
        // still queued when the timer is cancelled must not keep the ended run alive.
        timer.setEventHandler { [self] in
            guard let run = lock.withLock({ self.run }) else { return }
            Task {
                let snapshot = await run.status()
                lock.withLock {
                    lastStatus = snapshot
                    clearBlock()
                    redraw()
                }
            }
        }
        timer.resume()
        self.timer = timer
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

    /// Waits until every event of the ended run is written, then leaves the final status
    /// block (text) behind.
    func finish(status: RunStatus) {
        drained.wait()
        timer?.cancel()
        if restoreTerminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
            restoreTerminal = false
        }
        lock.lock()
        clearBlock()
        lastStatus = nil
        // The event task may outlive this call by a moment: holding the run, it would tear the
        // run down on its thread while the process exits.
        run = nil
        if format == .text {
            for text in StatusBoard.render(status, color: color, width: 100) { writeError(text) }
        }
        lock.unlock()
    }

    private func write(_ event: StatusEvent) {
        if format == .json {
            lock.withLock { FileHandle.standardOutput.write(Data((event.jsonLine(redact: { $0 }) + "\n").utf8)) }
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

    /// Brings the live block's status up to date (when one is shown).
    private func refreshStatus() async {
        guard let run = lock.withLock({ self.run }) else { return }
        let snapshot = await run.status()
        lock.withLock { if lastStatus != nil { lastStatus = snapshot } }
    }

    private func writeError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes a line above the live block.
    private func line(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        clearBlock()
        writeError(text)
        redraw()
    }

    private static let clock: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()

    /// Caller holds the lock.
    private func clearBlock() {
        guard live, drawnLines > 0 else { return }
        FileHandle.standardError.write(Data("\u{1B}[\(drawnLines)A\u{1B}[J".utf8))
        drawnLines = 0
    }

    /// Caller holds the lock.
    private func redraw() {
        guard live, let status = lastStatus else { return }
        let lines = StatusBoard.render(status, color: color, width: 100, dashboard: dashboard)
        for text in lines { writeError(text) }
        drawnLines = lines.count
    }
}
