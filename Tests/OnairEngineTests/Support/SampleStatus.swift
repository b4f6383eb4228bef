import OnairEngine

/// A run with two renditions and three destinations in different states.
func sampleStatus() -> RunStatus {
    let youtube = DestinationStats(
        packetsSent: 4000, bytesSent: 3_000_000, packetsDropped: 0, gopsDropped: 0, reconnects: 0, bitsPerSecond: 4_520_000)
    let twitch = DestinationStats(packetsSent: 900, bytesSent: 700_000, packetsDropped: 48, gopsDropped: 1, reconnects: 2, bitsPerSecond: 0)
    return RunStatus(
        pipeline: "studio", elapsed: .seconds(83), overlay: "room",
        renditions: [
            RenditionStatus(id: "r0", width: 1280, height: 720, fps: 30, speed: 1, frames: 2490, bitrate: 3_200_000),
            RenditionStatus(id: "r1", width: 720, height: 1280, fps: 28.4, speed: 0.9, frames: 2400, repeated: 3),
        ],
        destinations: [
            DestinationStatus(name: "youtube", platform: "youtube", state: .live, stats: youtube, required: true),
            DestinationStatus(
                name: "twitch", platform: "twitch", state: .retrying(attempt: 3, nextTryIn: .seconds(4)), stats: twitch, required: false),
            DestinationStatus(name: "archive", state: .failed(reason: "disk full"), required: false),
        ])
}
