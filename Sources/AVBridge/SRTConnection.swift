import CFFmpeg
import CSRT
import Foundation

/// What libsrt says about a connection (`srt_bistats`, the send buffer as it is now): read
/// between two writes, by the thread that writes.
public struct SRTStatistics: Sendable, Equatable {
    /// The smoothed round trip, ms.
    public var roundTripMilliseconds: Double
    /// The span of media in the send buffer (sent and not yet acknowledged, or waiting to be
    /// retransmitted), ms of its timeline.
    public var sendBufferMilliseconds: Int
    /// The payload bytes in the send buffer (as handed to it, without packet headers).
    public var sendBufferBytes: Int
    /// Packets retransmitted since connecting.
    public var packetsRetransmitted: Int
    /// Packets the sender dropped since connecting because they were too late to be played
    /// (the receiver's latency passed): media the receiver never gets.
    public var packetsDropped: Int
    /// Payload bytes of those.
    public var bytesDropped: Int

    /// Statistics.
    public init(roundTripMilliseconds: Double, sendBufferMilliseconds: Int, sendBufferBytes: Int, packetsRetransmitted: Int,
                packetsDropped: Int, bytesDropped: Int) {
        self.roundTripMilliseconds = roundTripMilliseconds
        self.sendBufferMilliseconds = sendBufferMilliseconds
        self.sendBufferBytes = sendBufferBytes
        self.packetsRetransmitted = packetsRetransmitted
        self.packetsDropped = packetsDropped
        self.bytesDropped = bytesDropped
    }
}

/// An SRT connection onair makes itself for a destination (caller, live mode) instead of
/// through libavformat's `srt://` protocol: FFmpeg 5.1 keeps that socket, and with it libsrt's
/// statistics (round trip, send buffer, drops), to itself, and adaptive bitrate reads them.
/// A ``MediaOutput`` writes its MPEG-TS into it (``MediaOutput/init(sending:format:options:streams:interruption:)``).
///
/// The URL is read as FFmpeg reads it (`av_url_split`, `av_find_info_tag`), with its options in
/// FFmpeg's units (`latency` in µs, `connect_timeout` in ms, `maxbw` in bytes/s). A URL with an
/// option outside ``supportedOptions`` is for libavformat's protocol
/// (``unsupportedOptions(in:)``).
///
/// Every wait (connecting, a full send buffer, draining at the end) polls its ``Interruption``
/// every 10 ms, so a stop request or a deadline ends it.
public final class SRTConnection: @unchecked Sendable {  // Owns a libsrt socket; one destination's worker uses it.
    /// The URL options it applies itself.
    public static let supportedOptions: Set<String> = [
        "mode", "transtype", "streamid", "passphrase", "pbkeylen", "enforced_encryption", "latency", "tsbpddelay", "peerlatency",
        "rcvlatency", "maxbw", "inputbw", "oheadbw", "tlpktdrop", "nakreport", "connect_timeout", "payload_size", "pkt_size",
    ]

    /// The options of `url` this type does not apply (FFmpeg's protocol has them), and a `mode`
    /// or `transtype` other than a live caller's.
    public static func unsupportedOptions(in url: String) -> [String] {
        guard let query = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        var unsupported: [String] = []
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            if !supportedOptions.contains(name) || (name == "mode" && value != "caller") || (name == "transtype" && value != "live") {
                unsupported.append(parts.count > 1 && (name == "mode" || name == "transtype") ? "\(name)=\(value)" : name)
            }
        }
        return unsupported
    }

    private var socket: SRTSOCKET = SRT_INVALID_SOCK
    private let poller: Int32
    private let interruption: Interruption
    /// The most one message carries (1316 bytes: seven TS packets, unless `payload_size` says).
    public let payloadSize: Int
    /// How long the receiver waits for a packet before it plays on without it (the latency
    /// agreed on at connection, ms): media held longer than this on the way is lost.
    public let receiverLatencyMilliseconds: Int
    /// Bytes handed to libsrt since connecting.
    public private(set) var bytesSent = 0
    /// Why the last send failed, in libsrt's words.
    public private(set) var failure: String?

    /// Connects to `url` within `connectTimeout` (libsrt's default is 3 s; an URL's
    /// `connect_timeout` wins), honouring `interruption`.
    public init(url: String, connectTimeout: Duration, interruption: Interruption) throws(LibavError) {
        self.interruption = interruption
        guard srt_startup() >= 0 else { throw LibavError(function: "srt_startup", code: .outOfMemory) }
        poller = srt_epoll_create()
        let options = Self.options(of: url)
        let (host, port) = Self.hostAndPort(of: url)
        guard let port, port > 0, port < 65536 else {
            srt_epoll_release(poller)
            srt_cleanup()
            throw Self.error("srt_connect", .invalidArgument, "the URL names no port")
        }
        var connected: SRTSOCKET = SRT_INVALID_SOCK
        var payload = 1316, latency = 120
        do {
            let timeout = options["connect_timeout"].flatMap { Int($0) } ?? connectTimeout.wholeMilliseconds
            connected = try Self.connect(host: host, port: port, options: options, timeoutMs: timeout, poller: poller, interruption: interruption)
            var value: Int32 = 0
            var length = Int32(MemoryLayout<Int32>.size)
            if srt_getsockflag(connected, SRTO_PAYLOADSIZE, &value, &length) == 0, value > 0 { payload = Int(value) }
            length = Int32(MemoryLayout<Int32>.size)
            if srt_getsockflag(connected, SRTO_PEERLATENCY, &value, &length) == 0, value > 0 { latency = Int(value) }
        } catch {
            srt_epoll_release(poller)
            srt_cleanup()
            throw error
        }
        socket = connected
        payloadSize = payload
        receiverLatencyMilliseconds = latency
    }

    deinit {
        close()
    }

    /// What libsrt says about the connection now; nil once closed.
    public func statistics() -> SRTStatistics? {
        guard socket != SRT_INVALID_SOCK else { return nil }
        var stats = SRT_TRACEBSTATS()
        // Instantaneous: `srt_bstats` gives the send buffer as a moving average over about a
        // second, which lags a narrowing link by as much.
        guard srt_bistats(socket, &stats, 0, 1) == 0 else { return nil }
        // libsrt counts each packet's SRT, UDP and IP headers in the buffer's bytes; what was
        // handed to it (``bytesSent``) is payload.
        let payload = Int(stats.byteSndBuf) - Int(stats.pktSndBuf) * Self.packetHeaderBytes
        return SRTStatistics(roundTripMilliseconds: stats.msRTT, sendBufferMilliseconds: Int(stats.msSndBuf), sendBufferBytes: max(0, payload),
                             packetsRetransmitted: Int(stats.pktRetransTotal), packetsDropped: Int(stats.pktSndDropTotal),
                             bytesDropped: max(0, Int(clamping: stats.byteSndDropTotal) - Int(stats.pktSndDropTotal) * Self.packetHeaderBytes))
    }

    /// The headers libsrt counts with each packet in its statistics' bytes: SRT's 16, UDP's 8
    /// and IPv4's 20.
    static let packetHeaderBytes = 44

    /// Sends `count` bytes as messages of at most ``payloadSize``; the bytes sent, or a
    /// negative `AVERROR` (`AVERROR_EXIT` when interrupted) — what an AVIO write callback returns.
    func send(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int32 {
        var offset = 0
        while offset < count {
            let length = min(payloadSize, count - offset)
            let sent = (bytes + offset).withMemoryRebound(to: CChar.self, capacity: length) { srt_sendmsg2(socket, $0, Int32(length), nil) }
            if sent == csrt_error() {
                guard srt_getlasterror(nil) == csrt_would_block_sending() else {
                    failure = String(cString: srt_getlasterror_str())
                    return LibavErrorCode.brokenPipe.rawValue
                }
                // The send buffer is full: wait for room, a stop or the deadline.
                guard waitUntilWritable() else { return LibavErrorCode.exit.rawValue }
                continue
            }
            offset += length
        }
        bytesSent += count
        return Int32(count)
    }

    /// Waits (at most `timeout`, and not past a stop or the deadline) until every byte sent was
    /// acknowledged or dropped, so closing does not cut off the last second of media.
    public func drain(timeout: Duration) {
        let deadline = ContinuousClock.now + timeout
        while let stats = statistics(), stats.sendBufferBytes > 0, ContinuousClock.now < deadline, !interruption.shouldInterrupt {
            usleep(10_000)
        }
    }

    /// Closes the connection; safe to call twice.
    public func close() {
        guard socket != SRT_INVALID_SOCK else { return }
        srt_close(socket)
        socket = SRT_INVALID_SOCK
        srt_epoll_release(poller)
        srt_cleanup()
    }

    /// Whether the socket can take more before the interruption fires (polled every 10 ms).
    private func waitUntilWritable() -> Bool {
        var events = Int32(SRT_EPOLL_OUT.rawValue | SRT_EPOLL_ERR.rawValue)
        srt_epoll_add_usock(poller, socket, &events)
        defer { srt_epoll_remove_usock(poller, socket) }
        while !interruption.shouldInterrupt {
            var ready: [SRTSOCKET] = [SRT_INVALID_SOCK]
            var count: Int32 = 1
            if srt_epoll_wait(poller, nil, nil, &ready, &count, 10, nil, nil, nil, nil) > 0 { return true }
        }
        return false
    }

    /// Tries each address of `host` in turn until one connects, the timeout passes or the
    /// interruption fires.
    private static func connect(host: String, port: Int, options: [String: String], timeoutMs: Int, poller: Int32,
                                interruption: Interruption) throws(LibavError) -> SRTSOCKET {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw error("getaddrinfo", .invalidArgument, "\(host): " + String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        var address: UnsafeMutablePointer<addrinfo>? = list
        var last = error("srt_connect", .timedOut, "no address of \(host)")
        while let current = address {
            let socket = srt_create_socket()
            do throws(LibavError) {
                try configure(socket, options: options, timeoutMs: max(1, (deadline - .now).wholeMilliseconds))
                guard srt_connect(socket, current.pointee.ai_addr, Int32(current.pointee.ai_addrlen)) != csrt_error() else {
                    throw error("srt_connect", .brokenPipe, String(cString: srt_getlasterror_str()))
                }
                try waitForConnection(socket, deadline: deadline, interruption: interruption)
                return socket
            } catch {
                srt_close(socket)
                last = error
                if error.code == .exit || ContinuousClock.now >= deadline { throw error }
            }
            address = current.pointee.ai_next
        }
        throw last
    }

    /// Waits for a non-blocking connect to finish, polling its state every 10 ms.
    private static func waitForConnection(_ socket: SRTSOCKET, deadline: ContinuousClock.Instant, interruption: Interruption) throws(LibavError) {
        while true {
            let state = srt_getsockstate(socket)
            if state == SRTS_CONNECTED { return }
            if state == SRTS_BROKEN || state == SRTS_CLOSED || state == SRTS_NONEXIST {
                let reason = srt_getrejectreason(socket)
                if reason == Int32(SRT_REJ_TIMEOUT.rawValue) { throw error("srt_connect", .timedOut, "no answer in time") }
                throw error("srt_connect", .brokenPipe, "rejected: " + String(cString: srt_rejectreason_str(reason)))
            }
            if interruption.shouldInterrupt {
                throw interruption.deadlinePassed ? error("srt_connect", .timedOut, "no answer in time") : LibavError(function: "srt_connect", code: .exit)
            }
            if ContinuousClock.now >= deadline { throw error("srt_connect", .timedOut, "no answer in time") }
            usleep(10_000)
        }
    }

    /// Sets the options a live sender needs, and those of the URL, before connecting.
    private static func configure(_ socket: SRTSOCKET, options: [String: String], timeoutMs: Int) throws(LibavError) {
        func set(_ option: SRT_SOCKOPT, _ value: Int32, _ name: String) throws(LibavError) {
            var value = value
            guard srt_setsockflag(socket, option, &value, Int32(MemoryLayout<Int32>.size)) == 0 else { throw optionError(name) }
        }
        func set64(_ option: SRT_SOCKOPT, _ value: Int64, _ name: String) throws(LibavError) {
            var value = value
            guard srt_setsockflag(socket, option, &value, Int32(MemoryLayout<Int64>.size)) == 0 else { throw optionError(name) }
        }
        func setText(_ option: SRT_SOCKOPT, _ value: String, _ name: String) throws(LibavError) {
            let done = value.withCString { srt_setsockflag(socket, option, $0, Int32(strlen($0))) == 0 }
            guard done else { throw optionError(name) }
        }
        func integer(_ name: String) -> Int64? { options[name].flatMap { Int64($0) } }

        try set(SRTO_TRANSTYPE, Int32(SRTT_LIVE.rawValue), "transtype")
        try set(SRTO_SENDER, 1, "sender")
        // Non-blocking: connecting and sending wait here, where the interruption is polled.
        try set(SRTO_RCVSYN, 0, "rcvsyn")
        try set(SRTO_SNDSYN, 0, "sndsyn")
        try set(SRTO_CONNTIMEO, Int32(clamping: timeoutMs), "connect_timeout")
        if let value = integer("maxbw") { try set64(SRTO_MAXBW, value, "maxbw") }
        if let value = integer("pbkeylen") { try set(SRTO_PBKEYLEN, Int32(clamping: value), "pbkeylen") }
        if let value = options["passphrase"] { try setText(SRTO_PASSPHRASE, value, "passphrase") }
        if let value = integer("enforced_encryption") { try set(SRTO_ENFORCEDENCRYPTION, Int32(clamping: value), "enforced_encryption") }
        // FFmpeg's latencies are in µs, libsrt's in ms.
        if let value = integer("latency") ?? integer("tsbpddelay") { try set(SRTO_LATENCY, Int32(clamping: value / 1000), "latency") }
        if let value = integer("rcvlatency") { try set(SRTO_RCVLATENCY, Int32(clamping: value / 1000), "rcvlatency") }
        if let value = integer("peerlatency") { try set(SRTO_PEERLATENCY, Int32(clamping: value / 1000), "peerlatency") }
        if let value = integer("tlpktdrop") { try set(SRTO_TLPKTDROP, Int32(clamping: value), "tlpktdrop") }
        if let value = integer("nakreport") { try set(SRTO_NAKREPORT, Int32(clamping: value), "nakreport") }
        if let value = options["streamid"] { try setText(SRTO_STREAMID, value, "streamid") }
        if let value = integer("payload_size") ?? integer("pkt_size") { try set(SRTO_PAYLOADSIZE, Int32(clamping: value), "payload_size") }
        if let value = integer("inputbw") { try set64(SRTO_INPUTBW, value, "inputbw") }
        if let value = integer("oheadbw") { try set(SRTO_OHEADBW, Int32(clamping: value), "oheadbw") }

        func optionError(_ name: String) -> LibavError {
            error("srt_setsockflag", .invalidArgument, "\(name): " + String(cString: srt_getlasterror_str()))
        }
    }

    /// The URL's supported options as FFmpeg's protocol reads them (`av_find_info_tag`: no
    /// percent-decoding, `+` for a space).
    private static func options(of url: String) -> [String: String] {
        guard let question = url.firstIndex(of: "?") else { return [:] }
        let query = String(url[question...])
        var found: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 1024)
        for name in supportedOptions where av_find_info_tag(&buffer, Int32(buffer.count), name, query) != 0 {
            found[name] = text(buffer)
        }
        return found
    }

    /// The port `url` names, as ffmpeg reads it; nil when it names none (SRT has no default).
    public static func port(of url: String) -> Int? {
        hostAndPort(of: url).1
    }

    private static func hostAndPort(of url: String) -> (String, Int?) {
        var host = [CChar](repeating: 0, count: 1024)
        var port: Int32 = -1
        av_url_split(nil, 0, nil, 0, &host, Int32(host.count), &port, nil, 0, url)
        return (text(host), port > 0 ? Int(port) : nil)
    }

    /// A C string filled into `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func error(_ function: String, _ code: LibavErrorCode, _ message: String) -> LibavError {
        var error = LibavError(function: function, code: code)
        error.message = message
        return error
    }
}
