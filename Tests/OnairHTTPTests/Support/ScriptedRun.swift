import Foundation
import OnairControl
import OnairEngine
import OnairTestSupport
import Synchronization

/// A `RunControl` whose answers a test sets: what the API handlers are checked against before
/// a real run serves them (the end-to-end tests in OnairRunTests do that).
final class ScriptedRun: RunControl, @unchecked Sendable {
    let pipeline = "show"
    let hub = EventHub(historyCapacity: 50)
    let current = Mutex(ScriptedRun.withMixes(ScriptedRun.sampleStatus))
    let ready = Mutex(Readiness(ready: true, reasons: []))
    let stops = Mutex(0)
    /// Set to make previews fail (nil: a picture).
    let previewProblem = Mutex<PreviewError?>(nil)

    static let sampleStatus: RunStatus = {
        var status = sampleStatusWithoutSound
        status.loudness = [MixLoudness(mix: "program", momentary: -13.2, shortTerm: -14.1, integrated: -14.4, range: 5.5, truePeak: -2.3, maxTruePeak: -0.8)]
        return status
    }()

    private static let sampleStatusWithoutSound = RunStatus(
        pipeline: "show", state: .live, startedAt: Date(timeIntervalSince1970: 1_800_000_000), elapsed: .seconds(42),
        overlay: "room",
        overlays: [
            OverlayChoice(name: "room", number: 1, onAir: true, available: true),
            OverlayChoice(name: "keyed", number: 2, onAir: false, available: true),
            OverlayChoice(name: "broken", number: 3, onAir: false, available: false, reason: "the logo is missing"),
        ],
        inputs: [InputStatus(name: "camera", kind: "listen", state: .connected, losses: 1, lastError: "timed out")],
        failover: [FailoverStatus(input: "camera", onAir: "phone", backups: ["phone"], reason: "black", switches: 3)],
        renditions: [RenditionStatus(id: "r0", width: 1280, height: 720, fps: 30, speed: 1, frames: 1260, repeated: 2, bitrate: 2_500_000)],
        destinations: [
            DestinationStatus(
                name: "youtube", platform: "youtube", state: .live,
                stats: DestinationStats(
                    packetsSent: 100, bytesSent: 100_000, packetsDropped: 3, gopsDropped: 1,
                    reconnects: 1, bitsPerSecond: 2_600_000),
                required: true, queueBytes: 2048, queueMilliseconds: 120,
                link: LinkStatus(roundTripMilliseconds: 42.5, minRoundTripMilliseconds: 40, heldMilliseconds: 12, retransmittedPackets: 17,
                                 lateDroppedPackets: 4, local: "192.0.2.10:54321")),
            DestinationStatus(
                name: "archive", state: .retrying(attempt: 2, nextTryIn: .seconds(2)), required: false,
                lastError: "Connection refused"),
        ])

    func status() async -> RunStatus { current.withLock { $0 } }
    func readiness() async -> Readiness { ready.withLock { $0 } }
    func subscribe(after lastEventID: UInt64?, options: SubscriptionOptions) -> EventSubscription {
        hub.subscribe(after: lastEventID, options: options)
    }

    func switchOverlay(to name: String) async throws(OverlaySwitchError) -> RunStatus {
        let choices = current.withLock { $0 }.overlays
        guard let choice = choices.first(where: { $0.name == name || String($0.number) == name }) else {
            throw .unknown(name: name, suggestion: name == "keyd" ? "did you mean 'keyed'?" : nil)
        }
        guard choice.available else { throw .unavailable(name: choice.name, reason: choice.reason ?? "") }
        return current.withLock { status in
            status.overlay = choice.name
            status.overlays = status.overlays.map {
                OverlayChoice(name: $0.name, number: $0.number, onAir: $0.name == choice.name, available: $0.available, reason: $0.reason)
            }
            return status
        }
    }

    /// r0 (youtube, archive) is adaptive from 500k to 2500k; nothing else is there.
    func setBitrate(of rendition: String, to setting: BitrateSetting) async throws(BitrateError) -> BitrateChange {
        guard rendition == "r0" || rendition == "youtube" else { throw .unknown(name: rendition, known: ["r0 (youtube, archive)"]) }
        let from = current.withLock { $0.renditions[0].bitrate }
        let requested: Int? = if case .bitsPerSecond(let bits) = setting { bits } else { nil }
        let to = requested.map { min(2_500_000, max(500_000, $0)) } ?? from
        current.withLock { $0.renditions[0].bitrate = to }
        return BitrateChange(rendition: "r0", destinations: ["youtube", "archive"], control: setting == .auto ? .adaptive : .operator,
                             from: from, to: to, requested: requested,
                             minimum: 500_000, maximum: 2_500_000, clamped: false, message: "r0: set")
    }

    /// Mutes as asked (`camera` is the one source); the status lists it.
    func mute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        try setMuted(true, source: source, video: video, audio: audio)
    }

    func unmute(source: String, video: Bool, audio: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        try setMuted(false, source: source, video: video, audio: audio)
    }

    private func setMuted(_ muted: Bool, source: String, video: Bool, audio: Bool) throws(SourceControlError) -> RunStatus {
        guard source == "camera" else { throw .unknownSource(name: source, suggestion: source == "camra" ? "did you mean 'camera'?" : nil) }
        guard current.withLock({ $0.state }) != .draining else { throw .refused(reason: "the run is stopping") }
        let both = !video && !audio
        return current.withLock { status in
            var state = status.sources.first ?? SourceControlStatus(name: source, videoMuted: false, audioMuted: false)
            if video || both { state.videoMuted = muted }
            if audio || both { state.audioMuted = muted }
            status.sources = state.videoMuted || state.audioMuted ? [state] : []
            return status
        }
    }

    /// The sample status with a mix, `program` (voice, music at −12 dB), and no destination muted.
    static func withMixes(_ status: RunStatus) -> RunStatus {
        var status = status
        status.mixes = [MixStatus(name: "program", members: [.init(name: "voice", gainDB: 0, muted: false), .init(name: "music", gainDB: -12, muted: false)])]
        return status
    }

    /// Changes `program`'s members as asked (no other mix is there).
    func setGain(mix: String, source: String, gainDB: Double) async throws(MixControlError) -> RunStatus {
        guard MixLevels.gainRange.contains(gainDB) else { throw .outOfRange(gainDB: gainDB) }
        return try changeMember(source, in: mix) { $0.gainDB = gainDB }
    }

    func setMuted(_ muted: Bool, mix: String, source: String) async throws(MixControlError) -> RunStatus {
        try changeMember(source, in: mix) { $0.muted = muted }
    }

    private func changeMember(_ source: String, in mix: String, _ change: (inout MixStatus.Member) -> Void) throws(MixControlError) -> RunStatus {
        guard mix == "program" else { throw .unknownMix(name: mix, suggestion: mix == "progam" ? "did you mean 'program'?" : nil) }
        guard let index = current.withLock({ $0.mixes[0].members.firstIndex { $0.name == source } }) else {
            throw .unknownMember(mix: mix, name: source, suggestion: source == "musik" ? "did you mean 'music'?" : nil)
        }
        return current.withLock { status in
            change(&status.mixes[0].members[index])
            return status
        }
    }

    /// Mutes youtube's sound; archive shares its encoder, so it is refused.
    func setAudioMuted(_ muted: Bool, destination: String) async throws(MixControlError) -> RunStatus {
        guard destination == "youtube" || destination == "archive" else { throw .unknownDestination(name: destination, suggestion: nil) }
        guard destination == "youtube" else { throw .refused(reason: "destination 'archive' shares its encoded sound with 'youtube'") }
        return current.withLock { status in
            status.audioMutedDestinations = muted ? ["youtube"] : []
            return status
        }
    }

    func play(clip: String, in source: String, loop: Bool, at: MediaInstant?) async throws(SourceControlError) -> RunStatus {
        throw .clipUnavailable(clip: clip, reason: "a scripted run plays no clips")
    }

    func stop() async {
        stops.withLock { $0 += 1 }
        current.withLock { $0.state = .draining }
    }

    /// An 8×8 grey JPEG (made by ffmpeg).
    static let jpeg = Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAgAAAQABAAD//gAQTGF2YzU5LjM3LjEwMAD/2wBDAAgEBAQEBAUFBQUFBQYGBgYGBgYGBgYGBgYHBwcICAgHBwcGBgcHCAgICAkJCQgICAgJCQoKCgwMCwsODg4RERT/xABKAAEAAAAAAAAAAAAAAAAAAAAAAQEAAAAAAAAAAAAAAAAAAAAAEAEAAAAAAAAAAAAAAAAAAAAAEQEAAAAAAAAAAAAAAAAAAAAA/8AAEQgACAAIAwEiAAIRAAMRAP/aAAwDAQACEQMRAD8AAA//2Q=="
    )!

    func preview(of destination: String) async throws(PreviewError) -> PreviewPicture {
        if let problem = previewProblem.withLock({ $0 }) { throw problem }
        guard current.withLock({ $0 }).destinations.contains(where: { $0.name == destination }) else { throw .unknownDestination(destination) }
        return PreviewPicture(destination: destination, rendition: "r0", jpeg: Self.jpeg, width: 8, height: 8, capturedAt: Date())
    }
}
