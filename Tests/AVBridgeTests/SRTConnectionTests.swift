import AVBridge
import Foundation
import OnairTestSupport
import Synchronization
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
        let bound = try LoopbackPort.bound(Int32(SOCK_DGRAM.rawValue))
        return (bound.port, bound.descriptor)
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
        #expect(took > .milliseconds(500) && took < .milliseconds(2500), "\(took)")  // libsrt alone waits 3 s
    }

    @Test("a stop request ends a connection attempt at once")
    func stopped() throws {
        let peer = try silentPeer()
        defer { close(peer.socket) }
        let interruption = Interruption()
        // Its own thread, not a global queue: under a loaded suite a queue's timer can fire late,
        // and what is measured is the time from the request to the end of the attempt.
        let requested = Mutex<ContinuousClock.Instant?>(nil)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            requested.withLock { $0 = .now }
            interruption.requestStop()
        }
        #expect {
            _ = try SRTConnection(url: "srt://127.0.0.1:\(peer.port)", connectTimeout: .seconds(10), interruption: interruption)
        } throws: { error in
            (error as? LibavError)?.code == .exit
        }
        let ended = ContinuousClock.now
        let request = try #require(requested.withLock { $0 })
        // Far below the 10 s timeout: the attempt ended because of the request.
        #expect(ended - request < .seconds(2), "\(ended - request)")
    }

    @Test("a URL without a port is refused before any connection")
    func noPort() {
        #expect(throws: LibavError.self) {
            _ = try SRTConnection(url: "srt://127.0.0.1", connectTimeout: .seconds(1), interruption: Interruption())
        }
    }
}
