import Foundation
import OnairEngine
import OnairPlanner

/// Where a run talks to the operator: phases and events as lines, and on a terminal a live
/// status block redrawn in place; or JSON lines for machines. Thread-safe.
final class Console: @unchecked Sendable {
    private let format: Run.LogFormat
    private let statsInterval: Double
    private let lock = NSLock()
    private let live: Bool
    private let color: Bool
    private var drawnLines = 0
    private var timer: (any DispatchSourceTimer)?
    private var lastStatus: RunStatus?
    private var lastStats = Date.distantPast

    init(format: Run.LogFormat, statsInterval: Double) {
        self.format = format
        self.statsInterval = statsInterval
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

    private func write(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes one JSON line to standard output (the `--log-format json` log).
    private func json(_ event: StatusEvent) {
        lock.withLock { FileHandle.standardOutput.write(Data((event.jsonLine(redact: { $0 }) + "\n").utf8)) }
    }

    /// Writes a line above the live block.
    private func line(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        clearBlock()
        write(text)
        redraw()
    }

    func started(plan: PipelinePlan) {
        let event = StatusEvent(.runStarted(pipeline: plan.pipeline, inputs: plan.inputs.count, overlay: plan.activeOverlay,
                                            renditions: plan.renditions.count, destinations: plan.outputs.map(\.destination)))
        if format == .json { json(event) } else { line("▶ " + event.detail) }
    }

    func note(_ text: String) {
        let event = StatusEvent(.runNote(message: text))
        if format == .json { json(event) } else { line("■ " + event.detail) }
    }

    func event(_ event: StatusEvent) {
        if format == .json { return json(event) }
        // On a terminal, libav's warnings would drown the status; its errors still show.
        if case .libav(let level, _) = event.kind, !["error", "fatal", "panic"].contains(level) { return }
        if case .overlayApplied = event.kind, let status = statusSource {
            // The block names the combination on air: show the new one now, not at the next tick.
            let snapshot = status()
            lock.withLock { if lastStatus != nil { lastStatus = snapshot } }
        }
        line(Self.clock.string(from: event.time) + " " + event.textLine)
    }

    /// Where the live status comes from, once ``startStatus(_:)`` was called.
    private var statusSource: (@Sendable () -> RunStatus)? {
        lock.withLock { statusProvider }
    }

    private var statusProvider: (@Sendable () -> RunStatus)?

    private static let clock: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter
    }()

    /// Redraws the status block every second (terminal) or writes stats lines (JSON).
    func startStatus(_ status: @escaping @Sendable () -> RunStatus) {
        lock.withLock { statusProvider = status }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [self] in
            let snapshot = status()
            lock.lock()
            lastStatus = snapshot
            if live {
                clearBlock()
                redraw()
            } else if format == .json, Date().timeIntervalSince(lastStats) >= statsInterval - 0.5 {
                // Half a tick of slack: the timer fires every second, never exactly a second
                // after the last line, and `--stats-interval 1` must not mean every 2 s.
                lastStats = Date()
                FileHandle.standardOutput.write(Data((StatusEvent(.stats(snapshot)).jsonLine(redact: { $0 }) + "\n").utf8))
            }
            lock.unlock()
        }
        timer.resume()
        self.timer = timer
    }

    func finish(status: RunStatus) {
        timer?.cancel()
        if restoreTerminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
            restoreTerminal = false
        }
        lock.lock()
        lastStatus = status
        clearBlock()
        if format == .text {
            for text in StatusBoard.render(status, color: color, width: 100) { write(text) }
        } else {
            FileHandle.standardOutput.write(Data((StatusEvent(.stats(status)).jsonLine(redact: { $0 }) + "\n").utf8))
        }
        lastStatus = nil
        lock.unlock()
    }

    /// Caller holds the lock.
    private func clearBlock() {
        guard live, drawnLines > 0 else { return }
        FileHandle.standardError.write(Data("\u{1B}[\(drawnLines)A\u{1B}[J".utf8))
        drawnLines = 0
    }

    /// Caller holds the lock.
    private func redraw() {
        guard live, let status = lastStatus else { return }
        let lines = StatusBoard.render(status, color: color, width: 100)
        for text in lines { write(text) }
        drawnLines = lines.count
    }
}
