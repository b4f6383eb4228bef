import Foundation
import OnairControl
import OnairTerminal
import Testing

/// A run with two renditions and three destinations in different states.
func sampleStatus() -> RunStatus {
    let youtube = DestinationStats(
        packetsSent: 4000, bytesSent: 3_000_000, packetsDropped: 0, gopsDropped: 0, reconnects: 0, bitsPerSecond: 4_520_000)
    let twitch = DestinationStats(packetsSent: 900, bytesSent: 700_000, packetsDropped: 48, gopsDropped: 1, reconnects: 2, bitsPerSecond: 0)
    return RunStatus(
        pipeline: "studio", elapsed: .seconds(83), overlay: "room",
        renditions: [
            RenditionStatus(id: "r0", width: 1280, height: 720, fps: 30, speed: 1, frames: 2490, bitrate: 3_200_000, bitrateControl: .operator),
            RenditionStatus(id: "r1", width: 720, height: 1280, fps: 28.4, speed: 0.9, frames: 2400, repeated: 3),
        ],
        destinations: [
            DestinationStatus(name: "youtube", platform: "youtube", state: .live, stats: youtube, required: true),
            DestinationStatus(
                name: "twitch", platform: "twitch", state: .retrying(attempt: 3, nextTryIn: .seconds(4)), stats: twitch, required: false),
            DestinationStatus(name: "archive", state: .failed(reason: "disk full"), required: false),
        ])
}

/// `line` without ANSI colour codes.
func withoutColor(_ line: String) -> String {
    line.replacing(/\u{1B}\[[0-9;]*m/, with: "")
}

@Suite("StatusBoard: the live block on a TTY")
struct StatusBoardTests {
    @Test("one header, one line per rendition and one per destination")
    func layout() throws {
        let lines = StatusBoard.render(sampleStatus(), color: false, width: 0)
        try #require(lines.count == 6)
        #expect(lines[0].hasPrefix("onair 00:01:23"))
        #expect(lines[0].contains("1/3 destinations live"))
        #expect(lines[0].contains("on air: room"))
        #expect(lines[1].contains("r0") && lines[1].contains("1280x720") && lines[1].contains("30.0 fps") && lines[1].contains("1.00x"))
        #expect(lines[2].contains("28.4 fps") && lines[2].contains("0.90x"))
        #expect(lines[2].hasSuffix("2400 frames (3 repeated at switches)") && lines[1].hasSuffix("2490 frames"), "\(lines)")
        #expect(lines[1].contains("1.00x  3.20 Mb/s (pinned)  2490 frames") && !lines[2].contains("Mb/s"), "the encoder's bitrate now, when known, and an operator's pin")
        #expect(lines[3].contains("youtube") && lines[3].contains("live") && lines[3].contains("4.52 Mb/s"))
        #expect(lines[3].contains("dropped 0") && lines[3].contains("reconnects 0"))
        #expect(lines[4].contains("retrying (attempt 3, in 4.0s)") && lines[4].contains("0.00 Mb/s"))
        #expect(lines[4].contains("dropped 48") && lines[4].contains("reconnects 2"))
        #expect(lines[5].contains("failed: disk full"))
        #expect(!lines[3].contains("rtt"), "no link known, none shown")
        let announced = StatusBoard.render(sampleStatus(), color: false, width: 0, dashboard: "http://127.0.0.1:8750/")
        #expect(announced[0] == lines[0] + "  http://127.0.0.1:8750/")
        #expect(Array(announced.dropFirst()) == Array(lines.dropFirst()))
    }

    @Test("a connection's link: its round trip, and SRT's packets dropped as too late, in yellow, when there are any")
    func link() throws {
        var status = sampleStatus()
        status.destinations[0].link = LinkStatus(roundTripMilliseconds: 41.6, minRoundTripMilliseconds: 40, heldMilliseconds: 0,
                                                 retransmittedPackets: 3, lateDroppedPackets: 0)
        #expect(withoutColor(StatusBoard.render(status, color: false, width: 0)[3]).hasSuffix("reconnects 0  rtt 42 ms"))
        status.destinations[0].link?.lateDroppedPackets = 12
        let coloured = StatusBoard.render(status, color: true, width: 0)[3]
        #expect(withoutColor(coloured).hasSuffix("rtt 42 ms  late 12") && coloured.contains("\u{1B}[33m  late 12"), "\(coloured)")
    }

    @Test("an input a backup stands in for gets a line saying which and why; a primary on air none")
    func failover() throws {
        var status = sampleStatus()
        status.failover = [FailoverStatus(input: "camera", onAir: "camera", backups: ["phone"])]
        #expect(StatusBoard.render(status, color: false, width: 0).count == 6)
        status.failover = [FailoverStatus(input: "camera", onAir: "phone", backups: ["phone"], reason: "black", switches: 1)]
        let lines = StatusBoard.render(status, color: false, width: 0)
        try #require(lines.count == 7)
        #expect(lines[3] == "  camera: phone on air in its place (black)")
    }

    @Test("columns line up across destinations")
    func alignment() {
        let lines = StatusBoard.render(sampleStatus(), color: false, width: 0)
        let columns = lines[3...].map { line in line.range(of: "Mb/s").map { line.distance(from: line.startIndex, to: $0.lowerBound) } }
        #expect(!columns.contains(nil))
        #expect(Set(columns).count == 1)
    }

    @Test("no line is wider than the terminal", arguments: [20, 40, 60])
    func width(width: Int) {
        for colored in [false, true] {
            let lines = StatusBoard.render(sampleStatus(), color: colored, width: width)
            for line in lines {
                #expect(withoutColor(line).count <= width, "\(line)")
            }
            #expect(lines.contains { withoutColor($0).hasSuffix("…") })
        }
    }

    @Test("colour marks states, and plain output has no escape codes")
    func colors() {
        let colored = StatusBoard.render(sampleStatus(), color: true, width: 0)
        #expect(colored[3].contains("\u{1B}[32mlive"))
        #expect(colored[4].contains("\u{1B}[33mretrying"))
        #expect(colored[5].contains("\u{1B}[31mfailed"))
        let plain = StatusBoard.render(sampleStatus(), color: false, width: 0)
        #expect(!plain.joined().contains("\u{1B}"))
        #expect(plain == colored.map(withoutColor))
    }

    @Test("a combination that failed on air: the header says so")
    func fallback() {
        var status = sampleStatus()
        status.overlay = "avatar (camera)"
        status.fallback = OverlayFallbackStatus(overlay: "avatar", onAir: "avatar (camera)", reason: "input 'avatar.mp4' failed", attempts: 2,
                                                since: Date(timeIntervalSince1970: 1_735_732_800))
        let header = StatusBoard.render(status, color: false, width: 0)[0]
        #expect(header.contains("on air: avatar (camera)  (avatar failed, retry 2)"), "\(header)")
    }
}
