import CFFmpeg

/// An unlinked pad of a parsed filter graph, copied out of libav's `AVFilterInOut` list.
struct OpenPad {
    /// The label written next to the pad, `nil` when there was none.
    var label: String?
    /// The filter the pad belongs to (owned by the graph).
    var filter: UnsafeMutablePointer<AVFilterContext>
    /// The parsed filter the pad belongs to.
    var owner: FilterInstance?
    /// The pad's index on that filter.
    var pad: Int32
    /// Video or audio, `nil` for other media.
    var kind: MediaKind?
}

/// The buffer sources and sinks through which frames enter and leave a parsed description
/// (owned by its graph).
struct GraphEndpoints {
    /// For each declared input, in order: a source per pad that reads its label (none when
    /// the description never reads it).
    var sources: [[UnsafeMutablePointer<AVFilterContext>]]
    /// For each declared output, in order: its sink.
    var sinks: [UnsafeMutablePointer<AVFilterContext>]
}

/// An `AVFilterGraph` and the filters in it; the graph is freed, with all its filters, on deinit.
///
/// Filter contexts handed out by this type stay valid as long as the graph object lives.
final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?

    /// An empty graph whose filters use at most `threads` threads each (0 lets libav choose).
    init(threads: Int = 0) throws(LibavError) {
        guard let graph = avfilter_graph_alloc() else {
            throw LibavError(function: "avfilter_graph_alloc", code: .outOfMemory)
        }
        graph.pointee.nb_threads = Int32(threads)
        self.graph = graph
    }

    deinit {
        avfilter_graph_free(&graph)
    }

    var pointer: UnsafeMutablePointer<AVFilterGraph> {
        graph!
    }

    /// The filters that ``parse(_:)`` created, in the order of the description.
    private(set) var parsedFilters: [FilterInstance] = []

    /// Adds the filters of `description` (ffmpeg `-filter_complex` syntax) to the graph, which
    /// must be empty, and returns the pads left unlinked: labels that refer to nothing inside
    /// the description, and pads without label.
    ///
    /// On failure libav has already freed every filter of the graph.
    func parse(_ description: String) throws(LibavError) -> (inputs: [OpenPad], outputs: [OpenPad]) {
        precondition(pointer.pointee.nb_filters == 0, "parse(_:) needs an empty graph")
        var inputs: UnsafeMutablePointer<AVFilterInOut>?
        var outputs: UnsafeMutablePointer<AVFilterInOut>?
        defer {
            avfilter_inout_free(&inputs)
            avfilter_inout_free(&outputs)
        }
        try LibavError.check(avfilter_graph_parse2(pointer, description, &inputs, &outputs), "avfilter_graph_parse2")
        // avfilter_graph_parse2 creates the filters in the order of the description (the index
        // it puts in their Parsed_<name>_<index> names), appending each to graph->filters.
        var owners: [UnsafeMutablePointer<AVFilterContext>: FilterInstance] = [:]
        let graph = pointer.pointee
        for index in 0..<Int(graph.nb_filters) {
            guard let filter = graph.filters?[index] else { continue }
            let instance = FilterInstance(
                filterName: filter.pointee.filter.map { String(cString: $0.pointee.name) } ?? "?",
                index: index,
                instanceName: Self.instanceName(of: filter))
            owners[filter] = instance
            parsedFilters.append(instance)
        }
        return (Self.pads(inputs, input: true, owners: owners), Self.pads(outputs, input: false, owners: owners))
    }

    private static func pads(
        _ list: UnsafeMutablePointer<AVFilterInOut>?, input: Bool,
        owners: [UnsafeMutablePointer<AVFilterContext>: FilterInstance]
    ) -> [OpenPad] {
        var pads: [OpenPad] = []
        var node = list
        while let current = node {
            if let filter = current.pointee.filter_ctx {
                let pad = current.pointee.pad_idx
                let type = input
                    ? cffmpeg_filter_input_type(filter, UInt32(pad))
                    : cffmpeg_filter_output_type(filter, UInt32(pad))
                pads.append(OpenPad(
                    label: current.pointee.name.map { String(cString: $0) },
                    filter: filter,
                    owner: owners[filter],
                    pad: pad,
                    kind: MediaKind(type)
                ))
            }
            node = current.pointee.next
        }
        return pads
    }

    /// Adds a `buffer` or `abuffer` source named `name` that produces `media`, with timestamps
    /// in `timeBase` (default: one frame, or one sample).
    func addSource(named name: String, media: InputMedia, timeBase: TimeBase? = nil) throws(LibavError) -> UnsafeMutablePointer<AVFilterContext> {
        switch media {
        case let .video(width, height, frameRate, pixelFormat):
            let filter = try allocate("buffer", named: name)
            try set(filter, "video_size", "\(width)x\(height)")
            try set(filter, "pix_fmt", pixelFormat)
            try set(filter, "time_base", timeBase?.rational ?? cffmpeg_rational(Int32(frameRate.denominator), Int32(frameRate.numerator)))
            try set(filter, "frame_rate", cffmpeg_rational(Int32(frameRate.numerator), Int32(frameRate.denominator)))
            try set(filter, "pixel_aspect", cffmpeg_rational(1, 1))
            try LibavError.check(avfilter_init_str(filter, nil), "avfilter_init_str")
            return filter
        case let .audio(sampleRate, channels, sampleFormat):
            let filter = try allocate("abuffer", named: name)
            try set(filter, "time_base", timeBase?.rational ?? cffmpeg_rational(1, Int32(sampleRate)))
            try set(filter, "sample_rate", "\(sampleRate)")
            try set(filter, "sample_fmt", sampleFormat)
            try set(filter, "channel_layout", Self.defaultChannelLayout(channels: channels))
            try LibavError.check(avfilter_init_str(filter, nil), "avfilter_init_str")
            return filter
        }
    }

    /// Adds a `buffersink` or `abuffersink` named `name` that accepts any format.
    func addSink(named name: String, kind: MediaKind) throws(LibavError) -> UnsafeMutablePointer<AVFilterContext> {
        let filter = try allocate(kind == .video ? "buffersink" : "abuffersink", named: name)
        try LibavError.check(avfilter_init_str(filter, nil), "avfilter_init_str")
        return filter
    }

    /// Connects output pad `sourcePad` of `source` to input pad `destinationPad` of `destination`.
    func link(
        _ source: UnsafeMutablePointer<AVFilterContext>, _ sourcePad: Int32,
        to destination: UnsafeMutablePointer<AVFilterContext>, _ destinationPad: Int32
    ) throws(LibavError) {
        try LibavError.check(
            avfilter_link(source, UInt32(sourcePad), destination, UInt32(destinationPad)), "avfilter_link")
    }

    /// Connects the pads ``parse(_:)`` left `open` to the outside, the one way both
    /// ``FilterGraphCheck`` and ``FilterGraphRunner`` do it, so the graph checked is the graph
    /// that runs:
    /// - every pad that reads a declared input's label gets a `buffer`/`abuffer` source of its
    ///   own, `in_<label>` (then `in_<label>_1`...), with timestamps in that input's time base
    ///   (default: one frame, or one sample). A label read twice is fed twice, as ffmpeg's
    ///   `-filter_complex` does: libavfilter links an output pad to one input pad only;
    /// - each declared output gets a sink `out_<label>` at the first pad producing its label.
    ///
    /// Pads with other labels stay open, for ``configure()`` to refuse.
    func connect(
        _ open: (inputs: [OpenPad], outputs: [OpenPad]),
        inputs: [(input: GraphInput, timeBase: TimeBase?)], outputs: [GraphOutput]
    ) throws(LibavError) -> GraphEndpoints {
        var sources: [[UnsafeMutablePointer<AVFilterContext>]] = []
        for (input, timeBase) in inputs {
            var feeds: [UnsafeMutablePointer<AVFilterContext>] = []
            for pad in open.inputs where pad.label == input.label {
                let name = feeds.isEmpty ? "in_\(input.label)" : "in_\(input.label)_\(feeds.count)"
                let source = try addSource(named: name, media: input.media, timeBase: timeBase)
                try link(source, 0, to: pad.filter, pad.pad)
                feeds.append(source)
            }
            sources.append(feeds)
        }
        var sinks: [UnsafeMutablePointer<AVFilterContext>] = []
        for output in outputs {
            guard let pad = open.outputs.first(where: { $0.label == output.label }) else {
                throw LibavError(function: "output label \(output.label)", code: .invalidArgument)
            }
            let sink = try addSink(named: "out_\(output.label)", kind: output.kind)
            try link(pad.filter, pad.pad, to: sink, 0)
            sinks.append(sink)
        }
        return GraphEndpoints(sources: sources, sinks: sinks)
    }

    /// Checks that every pad is connected and negotiates formats (`avfilter_graph_config`).
    func configure() throws(LibavError) {
        try LibavError.check(avfilter_graph_config(pointer, nil), "avfilter_graph_config")
    }

    /// The converters format negotiation inserted (filters libavfilter names `auto_*`), once
    /// the graph is configured.
    func insertedConversions() -> [FormatConversion] {
        var conversions: [FormatConversion] = []
        let graph = pointer.pointee
        for index in 0..<Int(graph.nb_filters) {
            guard let filter = graph.filters?[index], Self.instanceName(of: filter).hasPrefix("auto_"),
                  filter.pointee.nb_inputs == 1, filter.pointee.nb_outputs == 1,
                  let input = filter.pointee.inputs?[0], let output = filter.pointee.outputs?[0] else { continue }
            func format(_ link: UnsafeMutablePointer<AVFilterLink>) -> String {
                let name = link.pointee.type == AVMEDIA_TYPE_VIDEO
                    ? av_get_pix_fmt_name(AVPixelFormat(rawValue: link.pointee.format))
                    : av_get_sample_fmt_name(AVSampleFormat(rawValue: link.pointee.format))
                return name.map { String(cString: $0) } ?? "?"
            }
            conversions.append(FormatConversion(
                after: input.pointee.src.flatMap { FilterInstance(instanceName: Self.instanceName(of: $0)) },
                before: output.pointee.dst.flatMap { FilterInstance(instanceName: Self.instanceName(of: $0)) },
                from: format(input), to: format(output)))
        }
        return conversions
    }

    static func instanceName(of filter: UnsafeMutablePointer<AVFilterContext>) -> String {
        filter.pointee.name.map { String(cString: $0) } ?? ""
    }

    private func allocate(_ filterName: String, named name: String) throws(LibavError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let filter = avfilter_get_by_name(filterName) else {
            throw LibavError(function: "avfilter_get_by_name", code: .filterNotFound)
        }
        guard let context = avfilter_graph_alloc_filter(pointer, filter, name) else {
            throw LibavError(function: "avfilter_graph_alloc_filter", code: .outOfMemory)
        }
        return context
    }

    private func set(_ filter: UnsafeMutablePointer<AVFilterContext>, _ option: String, _ value: String) throws(LibavError) {
        try LibavError.check(av_opt_set(filter, option, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set(\(option))")
    }

    private func set(_ filter: UnsafeMutablePointer<AVFilterContext>, _ option: String, _ value: AVRational) throws(LibavError) {
        try LibavError.check(av_opt_set_q(filter, option, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set_q(\(option))")
    }

    /// libav's name for its default layout with `channels` channels: `"mono"`, `"stereo"`, `"5.1"`...
    static func defaultChannelLayout(channels: Int) -> String {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channels))
        defer { av_channel_layout_uninit(&layout) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard let base = buffer.baseAddress,
                  av_channel_layout_describe(&layout, base, buffer.count) >= 0 else { return "\(channels)c" }
            return String(cString: base)
        }
    }
}
