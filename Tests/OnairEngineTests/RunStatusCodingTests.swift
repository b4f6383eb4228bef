import Foundation
import OnairControl
import OnairEngine
import Testing

@Suite("RunStatus: what the API and the JSON log carry")
struct RunStatusCodingTests {
    @Test("the status round-trips through JSON with snake_case keys")
    func codable() throws {
        let status = try sampleStatus()
        let text = try json(status)
        #expect(text == sampleStatusJSON, "the keys, their order and the values as the API has them")
        #expect(text.contains(#""elapsed_ms":83000"#))
        #expect(text.contains(#""bits_per_second":4520000"#))
        #expect(text.contains(#""next_try_in_ms":4000"#))
        #expect(text.contains(#""reason":"disk full""#))
        #expect(try decode(RunStatus.self, text) == status)
    }

    @Test("a combination that failed on air: the status carries its fallback")
    func fallback() throws {
        var status = try sampleStatus()
        status.overlay = "avatar (camera)"
        status.fallback = OverlayFallbackStatus(overlay: "avatar", onAir: "avatar (camera)", reason: "input 'avatar.mp4' failed", attempts: 2,
                                                since: Date(timeIntervalSince1970: 1_735_732_800))
        let text = try json(status)
        #expect(text.contains(#""fallback":{"attempts":2,"on_air":"avatar (camera)","overlay":"avatar","#), "\(text)")
        #expect(text.contains(#""since":"2025-01-01T12:00:00Z""#), "\(text)")
        #expect(try decode(RunStatus.self, text) == status)
        #expect(!sampleStatusJSON.contains("fallback"), "no fallback, no key")
    }
}
