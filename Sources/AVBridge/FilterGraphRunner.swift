import CFFmpeg

/// A configured filter graph that frames flow through: decoded frames are pushed into its
/// sources, processed frames pulled from its sinks. Owned by one thread at a time.
public final class FilterGraphRunner {
    /// A source the graph reads: the label it has in the description, the frames' format, and
    /// the kernel (if any) that processes them before the graph does.
    public struct Source: Sendable {
        /// The label (`0:v`).
        public var label: String
        /// The format of frames pushed here (with a kernel, always its input pixel format);
        /// frames that differ are converted first.
        public var media: InputMedia
        /// The unit of pushed frames' timestamps.
        public var timeBase: TimeBase
        /// Pixel work done on every picture before the graph reads it.
        public var kernel: FrameKernel?

        /// Creates a source.
        public init(label: String, media: InputMedia, timeBase: TimeBase, kernel: FrameKernel? = nil) {
            self.label = label
            self.timeBase = timeBase
            self.kernel = kernel
            if kernel != nil, case let .video(width, height, frameRate, _) = media {
                self.media = .video(width: width, height: height, frameRate: frameRate, pixelFormat: FrameKernel.inputPixelFormat)
            } else {
                self.media = media
            }
        }

        /// What the graph itself reads: the kernel's output, or what is pushed.
        public var graphMedia: InputMedia { kernel?.output(of: media) ?? media }
    }

    /// A sink the graph writes: its label and, for audio, the number of samples per frame the
    /// encoder wants (AAC: 1024).
    public struct Sink: Sendable {
        /// The label (`v0`).
        public var label: String
        /// Video or audio.
        public var kind: MediaKind
        /// Samples per frame for audio encoders with a fixed frame size.
        public var audioFrameSize: Int?

        /// Creates a sink.
        public init(label: String, kind: MediaKind, audioFrameSize: Int? = nil) {
            self.label = label
            self.kind = kind
            self.audioFrameSize = audioFrameSize
        }
    }

    private let graph: FilterGraph
    /// The buffer sources of each ``Source``: one per pad that reads its label.
    private let sources: [[UnsafeMutablePointer<AVFilterContext>]]
    private let sinks: [UnsafeMutablePointer<AVFilterContext>]
    /// What brings a frame of another format to each source's (its libav context is made on
    /// first use, so an input that always matches costs nothing).
    ///
    /// Not a two-case enum of the two converter classes: such an enum keeps its case in spare
    /// bits of the reference, which LeakSanitizer does not follow, so every audio converter of
    /// a live graph was reported leaked at exit (scripts/sanitize).
    private let converters: [any FrameConversion]
    /// Each source's kernel at work, if it has one.
    private let kernels: [FrameKernelStage?]

    /// Parses `description`, connects the sources and sinks by label (as ``FilterGraphCheck``
    /// does: a label read twice gets a buffer source per pad), and configures the graph.
    /// A failure carries libav's own messages (captured from its log).
    public init(description: String, sources: [Source], sinks: [Sink], threads: Int = 0) throws(FilterGraphFailure) {
        LibAV.initialize()
        converters = sources.map { source -> any FrameConversion in
            switch source.media {
            case let .video(width, height, _, pixelFormat): VideoFrameConverter(width: width, height: height, pixelFormat: pixelFormat)
            case let .audio(sampleRate, channels, sampleFormat): AudioFrameConverter(sampleRate: sampleRate, channels: channels, sampleFormat: sampleFormat)
            }
        }
        do {
            kernels = try sources.map { source throws(LibavError) in try source.kernel.map { kernel throws(LibavError) in try FrameKernelStage(kernel) } }
        } catch {
            throw FilterGraphFailure(stage: .configuration, error: error, issues: [], log: [], filter: nil, filters: [], unusedInputs: [])
        }
        let (built, lines) = LibavLog.capturingResult { () throws(LibavError) -> (FilterGraph, GraphEndpoints) in
            let graph = try FilterGraph(threads: threads)
            let endpoints = try graph.connect(
                try graph.parse(description),
                inputs: sources.map { (GraphInput($0.label, $0.graphMedia), $0.timeBase) },
                outputs: sinks.map { GraphOutput($0.label, $0.kind) })
            try graph.configure()
            for (sink, filter) in zip(sinks, endpoints.sinks) {
                if let size = sink.audioFrameSize { av_buffersink_set_frame_size(filter, UInt32(size)) }
            }
            return (graph, endpoints)
        }
        switch built {
        case .success(let (graph, endpoints)):
            self.graph = graph
            self.sources = endpoints.sources
            self.sinks = endpoints.sinks
        case .failure(let error):
            throw FilterGraphFailure(stage: .configuration, error: error, issues: [], log: lines, filter: nil, filters: [], unusedInputs: [])
        }
    }

    /// Hands `frame` to source `index`, at every pad that reads its label (the frame is
    /// emptied: the graph takes its data). A frame whose format differs from the source's is
    /// converted first, then the source's kernel processes it.
    public func push(_ frame: Frame, source index: Int) throws(LibavError) {
        var input = frame
        defer { if input !== frame { frame.clear() } }
        if converters[index].changes(frame) {
            input = try converters[index].convert(frame)
            // The resampler may keep every sample of a short frame for the next one.
            if input.width == 0, input.sampleCount == 0 { return }
        }
        if let kernel = kernels[index] { input = try kernel.apply(to: input) }
        for (pad, source) in sources[index].enumerated() {
            // Each pad but the last gets a new reference; the last takes the frame over.
            let flags = pad == sources[index].count - 1 ? 0 : Int32(AV_BUFFERSRC_FLAG_KEEP_REF)
            try LibavError.check(av_buffersrc_add_frame_flags(source, input.pointer, flags), "av_buffersrc_add_frame_flags")
        }
    }

    /// Tells source `index` that no more frames will come. `end` (in the source's time base) is
    /// when its last frame ends; without it the source ends at its last frame's own timestamp,
    /// and a frame-rate filter (`fps`) downstream then drops that last frame.
    public func endOfStream(source index: Int, at end: Int64? = nil) throws(LibavError) {
        for source in sources[index] {
            if let end {
                try LibavError.check(av_buffersrc_close(source, end, 0), "av_buffersrc_close")
            } else {
                try LibavError.check(av_buffersrc_add_frame_flags(source, nil, 0), "av_buffersrc_add_frame_flags")
            }
        }
    }

    /// The next frame of sink `index`, `.wouldBlock` when the graph needs more input.
    public func pull(sink index: Int, into frame: Frame) throws(LibavError) -> LibavStatus {
        try LibavStatus(av_buffersink_get_frame(sinks[index], frame.pointer), "av_buffersink_get_frame")
    }

    /// The unit of sink `index`'s frame timestamps.
    public func timeBase(ofSink index: Int) -> TimeBase {
        TimeBase(av_buffersink_get_time_base(sinks[index]))
    }

    /// Changes a running filter's option between two frames (libavfilter's
    /// `avfilter_graph_send_command`): `target` is a filter's instance name or its filter name
    /// (every filter of that kind), `option` one it marks as changeable at run time.
    public func send(_ option: String, _ value: String, to target: String) throws(LibavError) {
        try LibavError.check(avfilter_graph_send_command(graph.pointer, target, option, value, nil, 0, 0), "avfilter_graph_send_command")
    }

    /// Changes a running filter's option on the first frame it processes at or after
    /// `seconds` of its timeline (libavfilter's `avfilter_graph_queue_command`): the change lands
    /// on a frame boundary however early it is asked for. `target` and `option` as for
    /// ``send(_:_:to:)``.
    public func queue(_ option: String, _ value: String, to target: String, atSeconds seconds: Double) throws(LibavError) {
        try LibavError.check(avfilter_graph_queue_command(graph.pointer, target, option, value, 0, seconds), "avfilter_graph_queue_command")
    }

    /// Where the filter `target` (its full instance name, `volume@mix.program.music`) has
    /// reached on its timeline: the start of the last frame it took in to process, µs
    /// (libavfilter's input link `current_pts_us`, set as the filter consumes a frame); nil
    /// before its first frame, or when no filter has that name. Not its output link's time:
    /// that moves only as the next filter takes frames, and frames it has processed may wait
    /// there.
    public func consumedMicros(of target: String) -> Int64? {
        guard let filter = avfilter_graph_get_filter(graph.pointer, target), filter.pointee.nb_inputs > 0,
              let link = filter.pointee.inputs[0] else { return nil }
        let micros = link.pointee.current_pts_us
        return micros == Int64.min ? nil : micros
    }

    /// Frames the source `index` has been asked for but not given, at the pad that asked most
    /// (backpressure hint).
    public func failedRequests(source index: Int) -> Int {
        sources[index].lazy.map { Int(av_buffersrc_get_nb_failed_requests($0)) }.max() ?? 0
    }
}
