import Foundation
import OnairPlanner
import OnairTestSupport
import Testing

/// `onair plan --timeline` and `onair plan --at` on the shipped evening show.
@Suite struct PlanTimelineTests {
    @Test func timelineText() async throws {
        let output = try await onair("plan", "evening", "--timeline", "--start", "17:55", "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Schedule of evening, for a run starting 17:55:00 on ") == true, "\(output.stdout)")
        #expect(lines.first?.hasSuffix(" (Europe/Paris)") == true)
        #expect(lines.contains("  start     +0s      on air: starting-soon · layers timer · live landscape · title \"Evening show\""), "\(output.stdout)")
        #expect(lines.contains("  18:00:00  +5m      overlay studio"), "\(output.stdout)")
        #expect(lines.contains("  18:05:10  +10m10s  hide lower-third  (for: of the action at line 71)"), "\(output.stdout)")
        #expect(lines.contains("  18:20:10  +25m10s  clip in camera ends, camera back  (the clip ends)"), "\(output.stdout)")
        #expect(lines.contains("  19:00:00  +1h5m    end"), "\(output.stdout)")
    }

    @Test func timelineJSONDecodes() async throws {
        let output = try await onair("plan", "evening", "--timeline", "--format", "json", "--start", "2026-12-01T17:55:00+01:00",
                                     "--project", repositoryRoot.path)
        #expect(output.status == 0, "\(output)")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let timeline = try decoder.decode(ShowTimeline.self, from: Data(output.stdout.utf8))
        #expect(timeline.clock.start == ISO8601DateFormatter().date(from: "2026-12-01T16:55:00Z"))
        #expect(timeline.steps.count == 13)
        #expect(timeline.steps.filter(\.action.isWritten).count == 11)
        #expect(timeline.endOffset == 65 * 60_000)
        #expect(timeline.state(atOffset: 10 * 60_000 + 5_000).shownLayers == ["lower-third"])
    }

    @Test func whatIsOnAirAtAMoment() async throws {
        let text = try await onair("plan", "evening", "--at", "18:20:05", "--start", "17:55", "--project", repositoryRoot.path)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.hasPrefix("On air in evening at 18:20:05 (+25m5s from a start at 17:55:00, Europe/Paris)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  combination  room\n"))
        #expect(text.stdout.contains("  clip         assets/brb.mp4 in camera's place, 5s in, until 18:20:10\n"), "\(text.stdout)")
        #expect(text.stdout.contains("  next         18:20:20 (+25m20s) overlay studio, in 15s"), "\(text.stdout)")

        let json = try await onair("plan", "evening", "--at", "+605s", "--format", "json", "--start", "17:55", "--project", repositoryRoot.path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let moment = try decoder.decode(ShowMoment.Report.self, from: Data(json.stdout.utf8))
        #expect(moment.offsetMs == 605_000 && moment.clock == "18:05:05")
        #expect(moment.state.variable("guest") == "Ada Lovelace · mathematician")
        #expect(moment.next?.offsetMs == 25 * 60_000)
    }

    @Test func badTimesAreUsageErrors() async throws {
        let at = try await onair("plan", "evening", "--at", "25:00", "--project", repositoryRoot.path)
        #expect(at.status == 2, "\(at)")
        #expect(at.stderr.contains("--at must be +5m, a clock time such as 18:05, or an ISO time"), "\(at)")
        let format = try await onair("plan", "evening", "--timeline", "--format", "dot", "--project", repositoryRoot.path)
        #expect(format.status == 2, "\(format)")
    }
}
