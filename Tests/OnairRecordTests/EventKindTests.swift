import Foundation
import OnairConfig
import Testing
@testable import OnairRecord

@Suite("The events a report reads")
struct EventKindTests {
    @Test("every kind a report reads is an event the engine names; an unknown name is no kind")
    func kindsAreEngineEvents() {
        let named = Set(NotifyEventFilter.eventNames)
        let unknown = RecordedEvent.Kind.allCases.map(\.rawValue).filter { !named.contains($0) }
        #expect(unknown.isEmpty, "not events of the engine: \(unknown)")
        #expect(RecordedEvent.Kind.inputFailed.verb == "failed" && RecordedEvent.Kind.overlayRestored.verb == "restored")
        #expect(RecordedEvent(time: .now, name: "run.renamed", fields: [:]).kind == nil)
    }
}
