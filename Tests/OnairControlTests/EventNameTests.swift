import Foundation
import OnairControl
import Testing

/// `EventName` is the one list of events: every event a run publishes has a name in it, and the
/// documents that list events (the docs' table, the API's document) say the same, in its order.
@Suite("EventName: the one list of events")
struct EventNameTests {
    /// The repository, from this file's place in it.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("names are dotted and unique; only stats and libav.log are frequent")
    func names() {
        let names = EventName.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0 == "stats" || $0.split(separator: ".").count == 2 })
        #expect(Set(EventName.allCases.filter { $0.frequency == .frequent }) == [.stats, .libavLog])
        #expect(EventName.allCases.allSatisfy { !$0.summary.isEmpty })
    }

    @Test("a destination's every state is an event, and a schedule's every outcome")
    func derivedNames() {
        let states: [DestinationState] = [.idle, .connecting(attempt: 1), .live, .retrying(attempt: 1, nextTryIn: .seconds(1)),
                                          .failed(reason: "x"), .stopped]
        #expect(states.map { EventName.destination($0).rawValue } == states.map { "destination.\($0.name)" })
        let outcomes: [ScheduleEvent.Outcome] = [.fired, .skipped, .added, .cancelled]
        #expect(outcomes.map(\.eventName.rawValue) == outcomes.map { "schedule.\($0.rawValue)" })
    }

    @Test("docs/alerts-and-reports.md's table lists every event, in order, with what it says")
    func documentedTable() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/alerts-and-reports.md"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = EventName.allCases.map { name in
            "| `\(name.rawValue)` | \(name.summary)\(name.frequency == .frequent ? " (frequent: selected only by its name)" : "") |"
        }
        #expect(rows == expected)
    }

    @Test("the API document's event enum is every event, in order")
    func documentedEnum() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let event = try #require(text.range(of: "    Event:\n"), "no Event schema")
        let line = try #require(text[event.upperBound...].split(separator: "\n").first { $0.contains("enum: [") }, "no event enum")
        let listed = line.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(listed == EventName.allCases.map(\.rawValue))
    }

    @Test("every event the dashboard colours or describes by name is an event a run publishes")
    func dashboardNames() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("Sources/OnairHTTP/Dashboard/dashboard.js"), encoding: .utf8)
        let known = Set(EventName.allCases.map(\.rawValue))
        let families = Set(known.compactMap { $0.split(separator: ".").first.map(String.init) })
        // Every quoted "family.verb" whose family is an event's: the tones' keys, the describe() cases.
        let quoted = try Regex(#""([a-z]+)\.([a-z-]+)""#)
        let named = text.matches(of: quoted).map { (String($0.output[1].substring!), String($0.output[0].substring!.dropFirst().dropLast())) }
            .filter { families.contains($0.0) }.map(\.1)
        #expect(named.count >= 20, "the dashboard names events: \(named)")
        #expect(Set(named).subtracting(known).isEmpty, "not events: \(Set(named).subtracting(known).sorted())")
    }
}
