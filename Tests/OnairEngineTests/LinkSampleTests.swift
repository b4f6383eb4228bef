import Foundation
@testable import OnairEngine
import OnairTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("TCP_INFO read from a real connection")
struct LinkSampleTests {
    @Test("a loopback connection that sent data: a round trip, a least one no larger, a delivery rate; a descriptor that is not TCP: nil")
    func readsALoopbackConnection() throws {
        let (listener, port) = try LoopbackPort.bound(Int32(SOCK_STREAM.rawValue))
        defer { close(listener) }
        try #require(listen(listener, 1) == 0)
        let client = try LoopbackPort.connected(to: port)
        defer { close(client) }
        let server = accept(listener, nil, nil)
        try #require(server >= 0)
        defer { close(server) }
        // Data that the peer acknowledges gives the kernel round trips and delivery samples.
        let chunk = [UInt8](repeating: 7, count: 64 << 10)
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        for _ in 0..<16 {
            #expect(chunk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) } == chunk.count)
            var received = 0
            while received < chunk.count {
                let got = sink.withUnsafeMutableBytes { recv(server, $0.baseAddress, $0.count, 0) }
                try #require(got > 0)
                received += got
            }
        }
        let sample = try #require(LinkSample.tcp(client))
        #expect(sample.roundTripMicros > 0, "\(sample)")
        #expect(sample.minRoundTripMicros > 0 && sample.minRoundTripMicros <= sample.roundTripMicros, "\(sample)")
        #expect(sample.deliveryBitsPerSecond > 0, "\(sample)")

        let notTCP = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(notTCP) }
        #expect(LinkSample.tcp(notTCP) == nil)
    }
}
