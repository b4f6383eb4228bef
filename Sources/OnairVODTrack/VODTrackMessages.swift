/// Twitch's VOD track on the wire: a second AAC track in the same RTMP session as the
/// broadcast, which live viewers do not hear and Twitch keeps for the VOD and clips (OBS's
/// "Twitch VOD Track").
///
/// Two FLV script-data messages carry it, as OBS sends them:
/// - once, before the media: `@setDataFrame`, `onExpectAdditionalMedia` and an object saying
///   that a stream `stream0` of audio labelled `PNAR` (programme narration) will come, for the
///   archive, while the main audio is labelled `PRM` (programme);
/// - for each AAC packet of the track: `additionalMedia` and `{id: "stream0", media: …}`,
///   where `media` is an AMF3 byte array holding what an FLV audio tag's body would (0xAF,
///   then 0 and the AudioSpecificConfig for the track's header, or 1 and a raw AAC frame).
///
/// The messages' timestamps are the FLV tags' (the packets' own), set by whoever writes them.
public enum VODTrackMessages {
    /// The one stream id the announcement declares.
    public static let streamID = "stream0"

    /// The announcement, sent once per session before the first media.
    public static let announcement: [UInt8] = {
        var amf = AMFWriter()
        amf.string("@setDataFrame")
        amf.string("onExpectAdditionalMedia")
        amf.object { object in
            object.field("processingIntents") { $0.strings(["ArchiveProgramNarrationAudio"]) }
            object.field("additionalMedia") { additional in
                additional.object { streams in
                    streams.field(streamID) { stream in
                        stream.object { track in
                            // The FLV tag type of audio.
                            track.field("type") { $0.number(8) }
                            track.field("mediaLabels") { labels in labels.object { $0.field("contentType") { $0.string("PNAR") } } }
                        }
                    }
                }
            }
            object.field("defaultMedia") { media in
                media.object { kinds in
                    kinds.field("audio") { audio in
                        audio.object { $0.field("mediaLabels") { labels in labels.object { $0.field("contentType") { $0.string("PRM") } } } }
                    }
                }
            }
        }
        return amf.bytes
    }()

    /// The track's header: its AAC AudioSpecificConfig (the encoder's extradata), sent once per
    /// session before its first frame.
    public static func header(audioSpecificConfig: [UInt8]) -> [UInt8] {
        media(kind: 0, audioSpecificConfig)
    }

    /// One raw AAC frame of the track.
    public static func frame(_ aac: [UInt8]) -> [UInt8] {
        media(kind: 1, aac)
    }

    /// `additionalMedia` with `{id, media}`: the FLV audio body (AAC, 44 kHz, 16-bit, stereo:
    /// 0xAF, as FLV writes every AAC tag whatever its real format) of `kind` (0 header, 1 frame).
    private static func media(kind: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var amf = AMFWriter()
        amf.string("additionalMedia")
        amf.object { object in
            object.field("id") { $0.string(streamID) }
            object.field("media") { $0.byteArray([0xAF, kind], payload) }
        }
        return amf.bytes
    }
}
