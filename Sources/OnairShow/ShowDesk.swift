import Foundation
import OnairConfig
import OnairControl
import OnairValidation
import Synchronization

/// The running schedule as the API sees and changes it (``ScheduleControl``): an action sent
/// as text is read and checked as the pipeline's schedule is (the same decoder and rules, its
/// problems located in the text sent), then handed to the ``ShowRunner``, which the desk gets
/// once the run has started.
public final class ShowDesk: ScheduleControl {
    /// The name problems locate the text sent in.
    static let displayPath = "action"

    private let spec: PipelineSpec
    private let projectRoot: URL
    private let paced: Bool
    private let runner = Mutex<ShowRunner?>(nil)

    /// The desk of a run of `spec` (the project at `projectRoot`); `paced`: whether the run
    /// keeps real time (an unpaced run's media clock runs ahead of the wall clock, so actions
    /// can't be added to it).
    public init(spec: PipelineSpec, projectRoot: URL, paced: Bool) {
        self.spec = spec
        self.projectRoot = projectRoot
        self.paced = paced
    }

    /// The run has started: `runner` carries its schedule out.
    public func attach(_ runner: ShowRunner) {
        self.runner.withLock { $0 = runner }
    }

    public func timeline() async -> ScheduleTimeline {
        guard let runner = runner.withLock({ $0 }) else { return .empty }
        return await runner.view()
    }

    public func add(_ text: String) async throws(ScheduleChangeError) -> ScheduleAddition {
        guard paced else {
            throw .unavailable(reason: "the run is not paced (--no-pacing): its media clock runs ahead of the wall clock, so actions can't be added")
        }
        guard let runner = runner.withLock({ $0 }) else { throw .unavailable(reason: "the run has not started yet; add actions once it is live") }
        let log = DiagnosticLog()
        let read = ActionSpec.decodeAdded(text: text, displayPath: Self.displayPath, projectRoot: projectRoot, log: log)
        guard read.loaded else { throw .malformed(Self.problems(log)) }
        guard let action = read.action, log.errorCount == 0 else { throw .invalid(Self.problems(log)) }
        let durations = ScheduleCheck.checkAdded(action, to: spec, displayPath: Self.displayPath, projectRoot: projectRoot, log: log)
        guard log.errorCount == 0 else { throw .invalid(Self.problems(log)) }
        let (added, problems) = await runner.add(action, clipDurations: durations, displayPath: Self.displayPath)
        problems.forEach(log.report)
        guard let added else { throw .invalid(Self.problems(log)) }
        let book = await runner.book
        return ScheduleAddition(entries: added.map { book.view($0) }, warnings: Self.problems(log).filter { $0.severity != "error" })
    }

    public func cancel(_ id: Int) async throws(ScheduleChangeError) -> [ScheduleTimeline.Entry] {
        guard let runner = runner.withLock({ $0 }) else { throw .unknown(id: id) }
        let cancelled = try await runner.cancel(id)
        let book = await runner.book
        return cancelled.map { book.view($0) }
    }

    /// What `log` holds, located in the text sent.
    private static func problems(_ log: DiagnosticLog) -> [ScheduleProblem] {
        log.sorted.map { ScheduleProblem($0, withFile: false) }
    }
}
