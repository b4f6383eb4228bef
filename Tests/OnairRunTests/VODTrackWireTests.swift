import Foundation
import OnairTestSupport
import Testing

/// Twitch's VOD track as onair puts it on the wire, read back from a loopback capture of the
/// RTMP session (onair → a recording relay → nginx-rtmp): the messages OBS's format has, and in
/// them the music-free mix.
enum VODTrackWire {
    /// The announcement OBS sends before the media, written out from its format (not from
    /// onair's code): `@setDataFrame`, `onExpectAdditionalMedia`, and what is expected.
    static let announcement: [AMFValue] = [
        .string("@setDataFrame"), .string("onExpectAdditionalMedia"),
        .object([
            ("processingIntents", .strictArray([.string("ArchiveProgramNarrationAudio")])),
            ("additionalMedia", .object([("stream0", .object([("type", .number(8)), ("mediaLabels", .object([("contentType", .string("PNAR"))]))]))])),
            ("defaultMedia", .object([("audio", .object([("mediaLabels", .object([("contentType", .string("PRM"))]))]))])),
        ]),
    ]

    /// What the capture says of the session.
    struct Session {
        /// The track's AudioSpecificConfig, from its header message.
        var audioSpecificConfig: [UInt8]
        /// Each AAC frame of the track and its message's timestamp (ms).
        var frames: [(timestamp: UInt32, aac: [UInt8])]
        /// The main sound's frame timestamps (ms), its header left out.
        var mainAudio: [UInt32]
        /// The main sound's AudioSpecificConfig, from its header.
        var mainAudioSpecificConfig: [UInt8]
    }

    /// Checks the order and the form of every message of `messages` that concerns the track:
    /// `onMetaData`, then the announcement before any frame (after the codecs' headers, which
    /// libavformat writes with `onMetaData`; OBS sends it just before them), then the track's
    /// header before its first frame, each an `additionalMedia` message for `stream0`.
    static func read(_ messages: [RTMPMessage], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Session {
        let data = messages.enumerated().filter { $0.element.type == RTMPMessage.data }
        let decoded = try data.map { ($0.offset, try $0.element.amfValues()) }
        let metadata = try #require(decoded.first { $0.1.count > 1 && $0.1[1] == .string("onMetaData") }, sourceLocation: sourceLocation)
        let announced = try #require(decoded.first { $0.1.count > 1 && $0.1[1] == .string("onExpectAdditionalMedia") }, sourceLocation: sourceLocation)
        #expect(announced.1 == announcement, "\(announced.1)", sourceLocation: sourceLocation)
        // A frame, not a codec header: AVC or AAC packet type 1.
        let firstFrame = messages.firstIndex { ($0.type == RTMPMessage.audio || $0.type == RTMPMessage.video) && $0.payload.count > 1 && $0.payload[1] == 1 }
        #expect(metadata.0 < announced.0 && announced.0 < (firstFrame ?? messages.count),
                "onMetaData at \(metadata.0), the announcement at \(announced.0), frames from \(firstFrame ?? -1)", sourceLocation: sourceLocation)
        var config: [UInt8]?
        var frames: [(UInt32, [UInt8])] = []
        for (index, values) in decoded where values.first == .string("additionalMedia") {
            #expect(values.count == 2 && values[1]["id"] == .string("stream0"), "\(values)", sourceLocation: sourceLocation)
            guard case .avmplusByteArray(let media)? = values[1]["media"], media.count > 2, media[0] == 0xAF else {
                Issue.record("additionalMedia without an AAC body: \(values)", sourceLocation: sourceLocation)
                continue
            }
            if media[1] == 0 {
                #expect(config == nil && frames.isEmpty, "the header once, before the frames", sourceLocation: sourceLocation)
                config = Array(media.dropFirst(2))
            } else {
                frames.append((messages[index].timestamp, Array(media.dropFirst(2))))
            }
        }
        let audio = messages.filter { $0.type == RTMPMessage.audio && $0.payload.count > 1 }
        let mainHeader = try #require(audio.first { $0.payload[1] == 0 }, "no AAC header on the live sound", sourceLocation: sourceLocation)
        return Session(audioSpecificConfig: try #require(config, "no VOD track header", sourceLocation: sourceLocation),
                       frames: frames.map { (timestamp: $0.0, aac: $0.1) }, mainAudio: audio.filter { $0.payload[1] == 1 }.map(\.timestamp),
                       mainAudioSpecificConfig: Array(mainHeader.payload.dropFirst(2)))
    }

    /// The track's frames as an ADTS file (what a `.aac` file holds), for ffmpeg to decode:
    /// each frame behind a 7-byte header made from the AudioSpecificConfig.
    static func adts(_ session: Session) -> [UInt8] {
        let config = session.audioSpecificConfig
        let objectType = config[0] >> 3, rateIndex = (config[0] & 0x07) << 1 | config[1] >> 7, channels = (config[1] >> 3) & 0x0F
        var file: [UInt8] = []
        for frame in session.frames {
            let length = frame.aac.count + 7
            file += [0xFF, 0xF1, (objectType - 1) << 6 | rateIndex << 2 | channels >> 2, (channels & 3) << 6 | UInt8(length >> 11),
                     UInt8(length >> 3 & 0xFF), UInt8(length & 7) << 5 | 0x1F, 0xFC]
            file += frame.aac
        }
        return file
    }
}
