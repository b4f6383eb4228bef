import Foundation
import OnairConfig
import OnairControl
import OnairPlanner
import OnairShow
import OnairTestSupport
import Testing

/// Actions added to and cancelled from a running schedule through the ``ShowDesk`` (what the
/// API calls), on the stage whose media clock the test advances.
@Suite("A schedule changed while the run goes on")
struct LiveScheduleTests {
    static let pipeline = """
        sources:
          camera: {kind: test, size: 320x180, fps: 25}
          screen: {kind: test, size: 320x180, fps: 25, tone: false}
        overlays:
          room: {kind: real-scene, camera: camera}
          close: {kind: real-scene, camera: screen}
        active: room
        layers:
          - {kind: text, text: "hello", name: lower, hidden: true}
        quality: {width: 320, height: 180, fps: 25, video: {bitrate: 300k, profile: main}}
        destinations:
          archive: {kind: record, path: ../out/a.mkv}
        schedule:
          - {at: +2s, overlay: close}
          - {at: +8s, overlay: room}
        """

    /// A runner of `pipeline` on a stepped stage, running, and its desk.
    struct Show {
        let stage: SteppedStage
        let desk: ShowDesk
        let running: Task<Void, Never>

        init(_ pipeline: String = LiveScheduleTests.pipeline, paced: Bool = true) throws {
            let show = try SteppedShow(pipeline, startedAt: Date(timeIntervalSince1970: 1_800_000_000))
            desk = ShowDesk(spec: show.spec, projectRoot: show.projectRoot, paced: paced)
            desk.attach(show.runner)
            stage = show.stage
            running = Task { await show.runner.run() }
        }

        /// Advances the media clock `seconds`, a frame at a time.
        func advance(seconds: Double) async throws {
            for _ in 0..<Int(seconds * 25) { await stage.advanceFrame() }
        }

        func refusal(_ text: String) async -> ScheduleChangeError? {
            do throws(ScheduleChangeError) {
                _ = try await desk.add(text)
                return nil
            } catch {
                return error
            }
        }

        func cancelRefusal(_ id: Int) async -> ScheduleChangeError? {
            do throws(ScheduleChangeError) {
                _ = try await desk.cancel(id)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test("an added action is due at its time (after: from now), fires and lands at or after it; its for: undo comes with it",
          .timeLimit(.minutes(1)))
    func added() async throws {
        let show = try Show()
        defer { show.running.cancel() }
        try await show.advance(seconds: 1)
        let addition = try await show.desk.add("{after: 2s, show: lower, for: 1s}")
        #expect(addition.entries.map(\.id) == [3, 4] && addition.entries.map(\.action) == ["show lower", "hide lower"], "\(addition)")
        #expect(addition.entries.map(\.dueMs) == [3000, 4000] && addition.entries.allSatisfy { $0.state == .pending })
        #expect(addition.entries.last?.follows == 3)
        let json = try await show.desk.add(#"{"at": "+5s", "overlay": "room", "name": "back"}"#)
        #expect(json.entries.map(\.dueMs) == [5000] && json.entries.first?.name == "back")

        let timeline = await show.desk.timeline()
        #expect(timeline.entries.map(\.id) == [1, 3, 4, 5, 2], "by due time: \(timeline.entries.map(\.id))")
        #expect(timeline.next?.id == 1 && timeline.next?.countdownMs == 1000, "\(String(describing: timeline.next))")

        try await show.advance(seconds: 6)
        let reports = show.stage.reports.map(\.event)
        #expect(reports.filter { $0.outcome == .added }.map(\.id) == [3, 4, 5])
        let fired = reports.filter { $0.outcome == .fired }
        #expect(fired.map(\.id) == [1, 3, 4, 5], "\(fired)")
        for event in fired {
            let landed = try #require(event.landedMedia, "\(event)")
            #expect(landed >= event.dueMedia && event.applied, "\(event)")
        }
        let after = await show.desk.timeline()
        #expect(after.entries.filter { $0.state == .fired }.map(\.id) == [1, 3, 4, 5])
        #expect(after.entries.first { $0.id == 3 }?.landedMediaMicros == 3_000_000)
    }

    @Test("a cancelled action and what it implies never fire; unknown ids, settled actions and one being carried out are refused",
          .timeLimit(.minutes(1)))
    func cancelled() async throws {
        let show = try Show()
        defer { show.running.cancel() }
        let added = try await show.desk.add("{at: +4s, show: lower, for: 2s}")
        let cancelled = try await show.desk.cancel(added.entries[0].id)
        #expect(cancelled.map(\.id) == [3, 4] && cancelled.allSatisfy { $0.state == .cancelled }, "\(cancelled)")
        #expect(try await show.desk.cancel(2).map(\.id) == [2])
        try await show.advance(seconds: 3)
        await #expect(throws: ScheduleChangeError.unknown(id: 99)) { try await show.desk.cancel(99) }
        await #expect(throws: ScheduleChangeError.settled(id: 1, state: .fired)) { try await show.desk.cancel(1) }
        await #expect(throws: ScheduleChangeError.settled(id: 3, state: .cancelled)) { try await show.desk.cancel(3) }
        // Within the lead (2 s) an action is being prepared: too late to cancel.
        let soon = try await show.desk.add("{at: +5s, show: lower}")
        try await show.advance(seconds: 1)
        let late = await show.cancelRefusal(soon.entries[0].id)
        guard case .unavailable = late else { Issue.record("cancelled while in flight: \(String(describing: late))"); return }
        try await show.advance(seconds: 6)
        let reports = show.stage.reports.map(\.event)
        #expect(reports.filter { $0.outcome == .fired }.map(\.id) == [1, 5], "\(reports)")
        #expect(reports.filter { $0.outcome == .cancelled }.map(\.id) == [3, 4, 2])
    }

    @Test("what does not check is refused with each problem located in the text sent, with the validator's fix")
    func refused() async throws {
        let show = try Show()
        defer { show.running.cancel() }
        try await show.advance(seconds: 1)
        let unknown = try #require(await show.refusal("{at: +5s, overlay: clse}"))
        guard case .invalid(let problems) = unknown else { Issue.record("\(unknown)"); return }
        #expect(problems.first?.code == "unknown-reference" && problems.first?.line == 1 && problems.first?.column == 20, "\(problems)")
        #expect(problems.first?.suggestion == "did you mean 'close'?", "\(problems)")
        let early = try #require(await show.refusal("{at: +500ms, show: lower}"))
        #expect(early.problems.first?.code == "schedule-past" && early.problems.first?.column == 6, "\(early)")
        let hidden = try #require(await show.refusal("{at: +6s, hide: lower}"))
        #expect(hidden.problems.first?.code == "hide-hidden", "\(hidden)")
        let twice = try #require(await show.refusal("{at: +2s, overlay: room}"))
        #expect(twice.problems.first?.code == "simultaneous-actions", "\(twice)")
        let outside = try #require(await show.refusal("{at: +5s, play: {clip: /etc/hostname, in: camera}}"))
        #expect(outside.problems.contains { $0.code == "outside-project" }, "\(outside)")
        let malformed = try #require(await show.refusal("{at: +5s, overlay: [close"))
        guard case .malformed = malformed else { Issue.record("\(malformed)"); return }
        let two = try #require(await show.refusal("{at: +5s, overlay: close, show: lower}"))
        #expect(two.problems.first?.code == "conflicting-keys", "\(two)")
        let unpaced = try Show(paced: false)
        defer { unpaced.running.cancel() }
        let refusedUnpaced = await unpaced.refusal("{after: 5s, overlay: close}")
        guard case .unavailable = refusedUnpaced else { Issue.record("\(String(describing: refusedUnpaced))"); return }
    }

    @Test("a run without a schedule shows an empty timeline and takes added actions", .timeLimit(.minutes(1)))
    func withoutSchedule() async throws {
        let bare = Self.pipeline.components(separatedBy: "schedule:")[0]
        let show = try Show(bare)
        defer { show.running.cancel() }
        #expect(await show.desk.timeline().entries.isEmpty)
        try await show.advance(seconds: 0.5)
        let added = try await show.desk.add("{after: 1s, overlay: close}")
        #expect(added.entries.map(\.id) == [1])
        try await show.advance(seconds: 2)
        let fired = show.stage.reports.map(\.event).filter { $0.outcome == .fired }
        #expect(fired.map(\.id) == [1] && (fired.first?.landedMedia ?? 0) >= (fired.first?.dueMedia ?? .max), "\(fired)")
    }
}
