import AVBridge
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("onair's own SRT connection: which URLs it takes, and how a connection that can't be made ends")
struct SRTConnectionTests {
    @Test("the options it applies itself pass; others, and a mode or transtype other than a live caller's, are named")
    func options() {
        #expect(SRTConnection.unsupportedOptions(in: "srt://ingest.example.com:9000") == [])
        #expect(SRTConnection.unsupportedOptions(in: "srt://h:9000?streamid=#!::r=live/key,m=publish&passphrase=abcdefghij&latency=2000000&mode=caller") == [])
        #expect(SRTConnection.unsupportedOptions(in: "srt://h:9000?mode=listener&ipttl=10&transtype=live") == ["mode=listener", "ipttl"])
        #expect(SRTConnection.unsupportedOptions(in: "srt://h:9000?transtype=file&smoother=file") == ["transtype=file", "smoother"])
    }

    /// A UDP socket on loopback that takes the caller's handshakes and never answers (no ICMP
    /// refusal either): its port, and the descriptor to close.
    private func silentPeer() throws -> (port: Int, socket: Int32) {
        let peer = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(peer >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(peer, $0, length) == 0 && getsockname(peer, $0, &length) == 0 }
        }
        try #require(bound)
        return (Int(UInt16(bigEndian: address.sin_port)), peer)
    }

    @Test("nobody answering: a timeout within the time given, saying so")
    func nobodyAnswers() throws {
        let peer = try silentPeer()
        defer { close(peer.socket) }
        let started = ContinuousClock.now
        #expect {
            _ = try SRTConnection(url: "srt://127.0.0.1:\(peer.port)?streamid=x", connectTimeout: .milliseconds(600), interruption: Interruption())
        } throws: { error in
            (error as? LibavError)?.code == .timedOut && "\(error)".contains("no answer")
        }
        let took = ContinuousClock.now - started
        #expect(took > .milliseconds(500) && took < .seconds(2), "\(took)")
    }

    @Test("a stop request ends a connection attempt at once")
    func stopped() throws {
        let peer = try silentPeer()
        defer { close(peer.socket) }
        let interruption = Interruption()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { interruption.requestStop() }
        let started = ContinuousClock.now
        #expect {
            _ = try SRTConnection(url: "srt://127.0.0.1:\(peer.port)", connectTimeout: .seconds(10), interruption: interruption)
        } throws: { error in
            (error as? LibavError)?.code == .exit
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("a URL without a port is refused before any connection")
    func noPort() {
        #expect(throws: LibavError.self) {
            _ = try SRTConnection(url: "srt://127.0.0.1", connectTimeout: .seconds(1), interruption: Interruption())
        }
    }
}
