import Foundation

/// How one of a run's workers ended.
enum WorkerOutcome: Equatable, Sendable {
    /// It did what it was for and ended (a file drained, an encoder flushed, a recording was
    /// closed with its trailer, a stop was obeyed).
    case finished
    /// It could not go on.
    case failed(String)
    /// It was cut off (``RunWorker/abort()``): what it held is lost.
    case aborted

    var failure: String? {
        if case .failed(let reason) = self { reason } else { nil }
    }
}

/// One of a run's threads — an input, the compositor, an encoder, a destination — as the
/// supervisor drives it: start it, ask it to finish what it has, cut it off, learn how it ended.
protocol RunWorker: AnyObject, Sendable {
    /// What it is, for messages (`encoder r0`, `destination youtube`).
    var workerName: String { get }
    /// Starts its thread.
    func start()
    /// Finish what you have and end: inputs stop reading, the compositor drains its graph,
    /// encoders flush, destinations send what is queued and close cleanly (one still
    /// connecting gives up at once: it has nothing to finish).
    func requestStop()
    /// End at once; what is held is dropped.
    func abort()
    /// Its end, once it has come.
    var end: WorkerEnd { get }
}

/// A worker's end: told once, by the worker; waited for or observed by anyone.
final class WorkerEnd: @unchecked Sendable {
    private struct State {
        var outcome: WorkerOutcome?
        var observers: [@Sendable (WorkerOutcome) -> Void] = []
    }

    private let state = Monitor(State())

    /// How it ended; nil while it runs (or before it started).
    var outcome: WorkerOutcome? { state.withLock { $0.outcome } }

    /// Whether it has ended.
    var hasEnded: Bool { outcome != nil }

    /// Records the end (the first call wins) and tells the observers.
    func finish(_ outcome: WorkerOutcome) {
        let observers = state.withLock { state -> [@Sendable (WorkerOutcome) -> Void] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.observers = [] }
            return state.observers
        }
        for observer in observers { observer(outcome) }
    }

    /// Calls `observer` once with the outcome: at once if it has ended, else when it does
    /// (on the worker's thread: keep it short).
    func observe(_ observer: @escaping @Sendable (WorkerOutcome) -> Void) {
        let ended = state.withLock { state -> WorkerOutcome? in
            if state.outcome == nil { state.observers.append(observer) }
            return state.outcome
        }
        if let ended { observer(ended) }
    }

    /// Waits until it has ended or `deadline` (monotonic seconds) passes; the outcome, if any.
    @discardableResult
    func wait(until deadline: Double) -> WorkerOutcome? {
        let remaining = max(0, deadline - monotonicSeconds())
        return state.withLock(waitingUntil: { $0.outcome != nil }, deadline: .now + .milliseconds(Int(remaining * 1000))) { $0.outcome }
    }
}
