import Crypto
import Foundation
import OnairConfig
import OnairControl
import OnairTestSupport
import Synchronization
@testable import OnairNotify

/// A run that is only its events: the notifier needs nothing else of `RunControl`.
final class EventsOnlyRun: RunControl, Sendable {
    let pipeline = "studio"
    let hub = EventHub()

    func status() async -> RunStatus { RunStatus(pipeline: pipeline, elapsed: .zero, renditions: [], destinations: []) }
    func readiness() async -> Readiness { Readiness(ready: true, reasons: []) }
    func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions) -> EventSubscription {
        hub.subscribe(after: lastEventID, options: options)
    }
    func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setBitrate(of rendition: String, to setting: BitrateSetting) async throws(BitrateError) -> BitrateChange {
        throw .refused(reason: "not in this test")
    }
    func stop() async { hub.finish() }
    func preview(of destination: String) async throws(PreviewError) -> PreviewPicture { throw .unavailable(reason: "not in this test") }
    func mute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setGain(mix: String, source: String, gainDB: Double) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setMuted(_ muted: Bool, mix: String, source: String) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func setAudioMuted(_ muted: Bool, destination: String) async throws(MixControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func unmute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }
    func play(clip: String, in source: String, loop: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus { throw .refused(reason: "not in this test") }

    /// Publishes `run.note` events `first...last` ("n1", "n2"…).
    func notes(_ numbers: ClosedRange<Int>) {
        for number in numbers { hub.publish(StatusEvent(.runNote(message: "n\(number)"))) }
    }
}

/// Randomness from a test seed, for the retries' jitter.
func seededRandom(_ seed: TestSeed) -> @Sendable () -> Double {
    let generator = Mutex(seed.generator())
    return { generator.withLock { Double.random(in: 0..<1, using: &$0) } }
}

/// The signing secret of the tests: the Standard Webhooks specification's example.
let specSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

/// Notes the notifier gave the operator.
final class NoteLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

extension WebhookReceiver.Delivery {
    /// The `message` of a run.note body.
    var note: String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String
    }
}

/// The Standard Webhooks signature of a delivery worked out here from the specification, not
/// by `WebhookSigner`: HMAC-SHA256 keyed with the base64 after `whsec_`, over `id.timestamp.body`.
func independentSignature(secret: String, id: String, timestamp: Int, body: Data) -> String? {
    guard let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else { return nil }
    var signed = Data("\(id).\(timestamp).".utf8)
    signed.append(body)
    return "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
}
