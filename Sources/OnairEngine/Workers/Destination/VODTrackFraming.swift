import AVBridge
import OnairVODTrack

/// Twitch's VOD track on one connection, as its session writes it: the announcement right
/// after the muxer's header, the track's header before its first frame, and each AAC packet
/// of the track (stream 2 of the rendition) wrapped in an `additionalMedia` message on the
/// muxer's script-data stream. A new connection starts over (each is its own RTMP session).
struct VODTrackFraming {
    /// The rendition's stream that carries it.
    static let stream = 2

    /// The track's AudioSpecificConfig.
    let audioSpecificConfig: [UInt8]
    /// Whether this connection has had the track's header.
    private var headerSent = false

    init(audioSpecificConfig: [UInt8]) {
        self.audioSpecificConfig = audioSpecificConfig
    }

    /// Announces the track on a muxer that has just written its header.
    func announce(on media: MediaOutput) throws(LibavError) {
        try media.writeScriptTag(VODTrackMessages.announcement)
    }

    /// The script-data packets that carry `packet`, an AAC packet of the track, with its
    /// timestamps: its header first on a new connection.
    mutating func messages(for packet: Packet) throws(LibavError) -> [Packet] {
        var messages: [Packet] = []
        if !headerSent {
            headerSent = true
            messages.append(try packet.replacingData(with: VODTrackMessages.header(audioSpecificConfig: audioSpecificConfig)))
        }
        messages.append(try packet.replacingData(with: VODTrackMessages.frame(packet.bytes)))
        return messages
    }
}
