import AVBridge
import OnairConfig
import OnairControl
import OnairPlanner
import Synchronization

/// A failover group at work in one combination's graph: the primary input whose graph pads it
/// feeds, its backups, which of them is on air (``FailoverSwitch``), and the latest picture of
/// each member that is not, kept to stand in at the cut. Used by the compositor's thread only
/// (its status is read through ``report``).
final class FailoverGroup {
    /// The primary's and the backups' input indices, primary first.
    let members: [Int]
    /// The workers, in member order.
    let workers: [InputWorker]
    /// Which member is on air and when to change.
    private(set) var selector: FailoverSwitch
    /// The latest picture each member decoded while not on air.
    private var latest: [InputFrame?]
    /// What operators see; written on this graph's thread, read by the status.
    let report: FailoverReport

    init(plan: FailoverPlan, inputs: [InputWorker]) {
        members = [plan.primary] + plan.backups
        workers = members.map { inputs[$0] }
        selector = FailoverSwitch(members: members.count, clear: Int64(plan.clearMs) * 1000)
        latest = Array(repeating: nil, count: members.count)
        report = FailoverReport(FailoverStatus(input: inputs[plan.primary].input.name, onAir: inputs[plan.primary].input.name,
                                               backups: plan.backups.map { inputs[$0].input.name }))
        for worker in workers { worker.watchSignal(after: Int64(plan.afterMs) * 1000, watching: plan.when) }
    }

    /// The primary's input index.
    var primary: Int { members[0] }

    /// The input index of the member on air.
    var feeder: Int { members[selector.onAir] }

    /// Continues where `other` (the same members, in a graph that was on air) left off: an
    /// overlay switch does not send a failed camera back on air.
    func takeOver(from other: FailoverGroup) {
        guard zip(workers, other.workers).allSatisfy({ $0 === $1 }), workers.count == other.workers.count else { return }
        selector = other.selector
        report.status = other.report.status
    }

    /// Watching starts now for members that have not delivered yet.
    func goOnAir(at now: Int64) {
        for worker in workers { worker.beginWatching(at: now) }
    }

    /// Keeps the members that are not on air warm: takes everything they decoded (so their
    /// readers never wait), keeping only their latest picture. Their `input.*` events come
    /// from their connections, as for any input (frames still queued when a camera died must
    /// not count as it coming back).
    func drainOffAir() {
        for (member, worker) in workers.enumerated() where member != selector.onAir {
            while let item = worker.mailbox.tryPop() {
                if item.kind == .video { latest[member] = item }
            }
        }
    }

    /// Decides at `now` whether another member goes on air; when one does, returns its latest
    /// picture to push at once in the primary's place (nil when it has none yet) and tells the
    /// events. The member that left keeps being drained from the next round on.
    func decide(at now: Int64, events: EventSink) -> (switched: Bool, standIn: InputFrame?) {
        let clear = selector.clear
        let readings = workers.map { worker in
            worker.signalReading(at: now, clear: clear) ?? FailoverSwitch.Reading(failure: nil, healthy: false, clean: false)
        }
        guard case .cut(let from, let to, let reason)? = selector.decide(at: now, readings: readings) else { return (false, nil) }
        let primaryName = workers[0].input.name
        let fromName = workers[from].input.name, toName = workers[to].input.name
        if to == 0 {
            events.emit(.inputRestored(input: primaryName, from: fromName))
        } else {
            events.emit(.inputFailover(input: primaryName, from: fromName, to: toName, reason: reason?.rawValue ?? "clean"))
        }
        var status = report.status
        status.onAir = toName
        status.reason = to == 0 ? nil : reason?.rawValue ?? "clean"
        status.switches = selector.switches
        report.status = status
        let standIn = latest[to]
        latest[to] = nil
        return (true, standIn)
    }
}

extension FailoverGroup {
    /// The first time after `now` at which a decision may come out otherwise without anything
    /// arriving (a member's condition lasting long enough, the wait between two switches
    /// ending); nil when time alone changes nothing.
    func nextDecision(after now: Int64) -> Int64? {
        let clear = selector.clear
        let settled = selector.lastSwitch.map { $0 + clear }.flatMap { $0 > now ? $0 : nil }
        return (workers.compactMap { $0.signalChange(after: now, clear: clear) } + [settled].compactMap { $0 }).min()
    }
}

/// What operators see of a failover group: written on the compositor's thread, read by the
/// status from any thread.
final class FailoverReport: Sendable {
    private let current: Mutex<FailoverStatus>

    init(_ status: FailoverStatus) {
        current = Mutex(status)
    }

    var status: FailoverStatus {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
