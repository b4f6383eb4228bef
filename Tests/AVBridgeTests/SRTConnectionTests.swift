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

    /// 5 s, beyond libsrt's own 3 s: what held is the time given. A lower bound, which a slow
    /// host can't fail; the upper one only guards against a hang.
    @Test("nobody answering: a timeout once the time given is up, saying so")
    func nobodyAnswers() async throws {
        let peer = try silentPeer()
        defer { close(peer.socket) }
        let (failure, took) = await OwnThread.run { () -> (LibavError?, Duration) in
            let started = ContinuousClock.now
            do throws(LibavError) {
                let url = "srt://127.0.0.1:\(peer.port)?streamid=x"
                _ = try SRTConnection(url: url, connectTimeout: .seconds(5), interruption: Interruption())
                return (nil, ContinuousClock.now - started)
            } catch {
                return (error, ContinuousClock.now - started)
            }
        }
        #expect(failure?.code == .timedOut && failure.map { "\($0)".contains("no answer") } == true, "\(String(describing: failure))")
        #expect(took >= .milliseconds(4500) && took < .seconds(60), "\(took)")  // libsrt alone gives up after 3 s
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
            _ = try SRTConnection(url: "srt://127.0.0.1:\(peer.port)", connectTimeout: .seconds(120), interruption: interruption)
        } throws: { error in
            (error as? LibavError)?.code == .exit
        }
        let ended = ContinuousClock.now
        let request = try #require(requested.withLock { $0 })
        // Far below the 120 s timeout, far above the moment it takes: the attempt ended because
        // of the request.
        #expect(ended - request < .seconds(60), "\(ended - request)")
    }

    @Test("a URL without a port is refused before any connection")
    func noPort() {
        #expect(throws: LibavError.self) {
            _ = try SRTConnection(url: "srt://127.0.0.1", connectTimeout: .seconds(1), interruption: Interruption())
        }
    }
}
