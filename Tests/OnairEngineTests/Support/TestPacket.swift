import Foundation
import OnairEngine

/// A packet for queue tests: a numbered video keyframe, video frame or audio frame.
struct TestPacket: QueuedPacket, Equatable, Sendable, CustomStringConvertible {
    /// What the packet carries.
    enum Kind: Equatable, Sendable {
        case keyframe, frame, audio
    }

    var id: Int
    var kind: Kind
    var byteCount: Int
    /// Its place on the media timeline (µs), when a test gives one.
    var mediaMicros: Int64?

    var isVideoKeyframe: Bool { kind == .keyframe }
    var isVideo: Bool { kind != .audio }

    var description: String {
        switch kind {
        case .keyframe: "K\(id)"
        case .frame: "v\(id)"
        case .audio: "a\(id)"
        }
    }

    static func keyframe(_ id: Int, bytes: Int = 1, at micros: Int64? = nil) -> TestPacket {
        TestPacket(id: id, kind: .keyframe, byteCount: bytes, mediaMicros: micros)
    }
    static func frame(_ id: Int, bytes: Int = 1, at micros: Int64? = nil) -> TestPacket {
        TestPacket(id: id, kind: .frame, byteCount: bytes, mediaMicros: micros)
    }
    static func audio(_ id: Int, bytes: Int = 1, at micros: Int64? = nil) -> TestPacket {
        TestPacket(id: id, kind: .audio, byteCount: bytes, mediaMicros: micros)
    }
}

/// A packet that is not `Sendable` (like the bridge's libav packets): it can only move between
/// threads by being given away.
final class OwnedPacket: QueuedPacket {
    let id: Int
    let isVideoKeyframe: Bool
    let isVideo: Bool
    let byteCount: Int
    var payload: [UInt8]

    init(id: Int, isVideoKeyframe: Bool, isVideo: Bool, byteCount: Int) {
        self.id = id
        self.isVideoKeyframe = isVideoKeyframe
        self.isVideo = isVideo
        self.byteCount = byteCount
        payload = [UInt8](repeating: UInt8(truncatingIfNeeded: id), count: 4)
    }
}

/// Drains `queue` without waiting, oldest first.
func drain<Element: QueuedPacket>(_ queue: PacketQueue<Element>) -> [Element] {
    var packets: [Element] = []
    while let packet = queue.pop(timeout: .zero) { packets.append(packet) }
    return packets
}

/// The same stream shape an encoder produces: GOPs of `gop` video packets, with an audio
/// packet after every `audioEvery`-th video packet, numbered from 0.
func encoderStream(count: Int, gop: Int, audioEvery: Int, keyframeBytes: Int, frameBytes: Int, audioBytes: Int) -> [TestPacket] {
    var packets: [TestPacket] = []
    var video = 0
    while packets.count < count {
        let id = packets.count
        packets.append(video % gop == 0 ? .keyframe(id, bytes: keyframeBytes) : .frame(id, bytes: frameBytes))
        video += 1
        if video % audioEvery == 0, packets.count < count { packets.append(.audio(packets.count, bytes: audioBytes)) }
    }
    return packets
}
