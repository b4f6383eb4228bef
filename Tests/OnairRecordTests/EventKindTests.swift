import Foundation
import OnairControl
import Testing
@testable import OnairRecord

@Suite("The events a report reads")
struct EventKindTests {
    @Test("a recorded event's kind is its EventName; a name this build does not know is none")
    func kindsAreEventNames() {
        for name in EventName.allCases { #expect(RecordedEvent(time: .now, name: name.rawValue, fields: [:]).kind == name) }
        #expect(EventName.inputFailed.verb == "failed" && EventName.overlayRestored.verb == "restored")
        #expect(RecordedEvent(time: .now, name: "run.renamed", fields: [:]).kind == nil)
    }
}
