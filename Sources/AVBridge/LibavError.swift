import CFFmpeg

/// A libav error code (a negative `AVERROR` value), with names for the ones the bridge acts on.
public struct LibavErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The negative value libav returned.
    public let rawValue: Int32

    /// Wraps a value returned by a libav function.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `AVERROR(EAGAIN)`: the call would block; read output (or send input) first.
    public static let tryAgain = LibavErrorCode(rawValue: cffmpeg_averror_eagain())
    /// `AVERROR_EOF`: the end of the stream was reached.
    public static let endOfFile = LibavErrorCode(rawValue: cffmpeg_averror_eof())
    /// `AVERROR_EXIT`: an interrupt callback asked libav to stop.
    public static let exit = LibavErrorCode(rawValue: cffmpeg_averror_exit())
    /// `AVERROR(EINVAL)`: an invalid argument, which is also what filter graph parsing returns for most mistakes.
    public static let invalidArgument = LibavErrorCode(rawValue: cffmpeg_averror_einval())
    /// `AVERROR(ENOMEM)`: an allocation failed.
    public static let outOfMemory = LibavErrorCode(rawValue: cffmpeg_averror_enomem())
    /// `AVERROR(EPIPE)`: the peer closed the connection (a dead RTMP server, for instance).
    public static let brokenPipe = LibavErrorCode(rawValue: cffmpeg_averror_epipe())
    /// `AVERROR(ETIMEDOUT)`: a connection was not made in time (libav's TCP gives up after its
    /// own 5 s unless told otherwise).
    public static let timedOut = LibavErrorCode(rawValue: cffmpeg_averror_etimedout())
    /// `AVERROR_INVALIDDATA`: the input data is malformed.
    public static let invalidData = LibavErrorCode(rawValue: cffmpeg_averror_invaliddata())
    /// `AVERROR_OPTION_NOT_FOUND`: an option name is unknown.
    public static let optionNotFound = LibavErrorCode(rawValue: cffmpeg_averror_option_not_found())
    /// `AVERROR_FILTER_NOT_FOUND`: a filter name is unknown.
    public static let filterNotFound = LibavErrorCode(rawValue: cffmpeg_averror_filter_not_found())
    /// `AVERROR_ENCODER_NOT_FOUND`: no encoder of that name or for that codec.
    public static let encoderNotFound = LibavErrorCode(rawValue: cffmpeg_averror_encoder_not_found())
    /// `AVERROR_DECODER_NOT_FOUND`: no decoder for that codec.
    public static let decoderNotFound = LibavErrorCode(rawValue: cffmpeg_averror_decoder_not_found())
    /// `AVERROR_DEMUXER_NOT_FOUND`: no input format of that name.
    public static let demuxerNotFound = LibavErrorCode(rawValue: cffmpeg_averror_demuxer_not_found())
    /// `AVERROR_STREAM_NOT_FOUND`: the input has no stream of the kind asked for.
    public static let streamNotFound = LibavErrorCode(rawValue: cffmpeg_averror_stream_not_found())

    /// libav's text for the code (`av_strerror`), e.g. `"Resource temporarily unavailable"`.
    public var message: String {
        let capacity = Int(cffmpeg_error_max_string_size())
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return "Error number \(rawValue)" }
            av_make_error_string(base, capacity, rawValue)
            return String(cString: base)
        }
    }

    /// The message followed by the numeric code, e.g. `"End of file (-541478725)"`.
    public var description: String {
        "\(message) (\(rawValue))"
    }
}

/// A libav function failed.
public struct LibavError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The C function that returned the code, e.g. `"avfilter_graph_config"`.
    public var function: String
    /// The code it returned.
    public var code: LibavErrorCode
    /// libav's text for ``code``.
    public var message: String

    /// Describes the failure of `function`, which returned `code`.
    public init(function: String, code: LibavErrorCode) {
        self.function = function
        self.code = code
        self.message = code.message
    }

    /// Describes the failure of `function`, which returned the negative value `code`.
    init(function: String, code: Int32) {
        self.init(function: function, code: LibavErrorCode(rawValue: code))
    }

    /// E.g. `"avfilter_graph_config failed: Invalid argument (-22)"`.
    public var description: String {
        "\(function) failed: \(message) (\(code.rawValue))"
    }

    /// Returns `code` when it is not negative, throws a ``LibavError`` naming `function` otherwise.
    ///
    /// For calls where "would block" and end of stream are part of normal operation
    /// (send/receive, buffersink reads), use ``LibavStatus/init(_:_:)`` instead.
    @discardableResult
    public static func check(_ code: Int32, _ function: String) throws(LibavError) -> Int32 {
        guard code < 0 else { return code }
        throw LibavError(function: function, code: code)
    }
}

/// The outcome of a libav call that may, without failing, be unable to proceed right now
/// or have reached the end: `avcodec_send_packet`/`avcodec_receive_frame`,
/// `av_buffersink_get_frame`, `av_read_frame` and the like.
public enum LibavStatus: Sendable, Hashable {
    /// The call did its work and returned this (non-negative) value.
    case done(Int32)
    /// `AVERROR(EAGAIN)`: nothing can happen right now. For a receive call, more input is
    /// needed; for a send call, pending output must be received first.
    case wouldBlock
    /// `AVERROR_EOF`: the stream is over (or was already flushed).
    case endOfStream

    /// Classifies the value `function` returned; any other negative value throws.
    public init(_ code: Int32, _ function: String) throws(LibavError) {
        switch code {
        case 0...: self = .done(code)
        case LibavErrorCode.tryAgain.rawValue: self = .wouldBlock
        case LibavErrorCode.endOfFile.rawValue: self = .endOfStream
        default: throw LibavError(function: function, code: code)
        }
    }
}
