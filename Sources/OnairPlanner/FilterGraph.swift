import OnairConfig

/// A libavfilter graph as a value: chains of filters between named pads, and the kernels the
/// engine runs on some input pads' pictures before the graph reads them.
///
/// Input pads are the plan's inputs' (``GraphPad/input(_:_:)``, `INDEX:v` / `INDEX:a` as ffmpeg's
/// `-filter_complex` names them); output pads feed renditions (``GraphPad/rendition(_:_:)``).
public struct FilterGraph: Codable, Equatable, Sendable {
    /// The chains, in the order they are written.
    public var chains: [FilterChain]
    /// Pixel work done on input pads' pictures before the chains read them.
    public var kernels: [SourceKernel]

    /// Creates a graph.
    public init(chains: [FilterChain] = [], kernels: [SourceKernel] = []) {
        self.chains = chains
        self.kernels = kernels
    }

    /// The kernel that processes `pad`'s pictures, if any.
    public func kernel(at pad: GraphPad) -> SourceKernel? {
        kernels.first { $0.pad == pad }
    }

    /// Every filter of the chains in description order, which is the order libavfilter numbers
    /// them (`Parsed_NAME_INDEX`) in the text `.appliedToSources` gives, so a libav message can be
    /// traced back to its filter.
    public var filtersInOrder: [Filter] { chains.flatMap(\.filters) }

    /// The pads no chain consumes: the graph's outputs.
    public var outputPads: [GraphPad] {
        let consumed = Set(chains.flatMap(\.inputs))
        return chains.flatMap(\.outputs).filter { !consumed.contains($0) }
    }

    /// The pads no chain produces: the graph's inputs.
    public var inputPads: [GraphPad] {
        let produced = Set(chains.flatMap(\.outputs))
        var seen = Set<GraphPad>()
        return chains.flatMap(\.inputs).filter { !produced.contains($0) && seen.insert($0).inserted }
    }

    /// The `-filter_complex` text, one chain per line when `multiline`: self-contained (kernels as
    /// their libavfilter equivalents) unless `kernels` is `.appliedToSources`.
    public func description(multiline: Bool = false, kernels text: KernelText = .asFilters) -> String {
        let graph = text == .asFilters ? withKernelsAsFilters : self
        return graph.chains.map(\.description).joined(separator: multiline ? ";\n" : ";")
    }

    /// The graph with its project-relative file options (a text layer's font file) prefixed
    /// with `base` (the project folder), so the graph reads them wherever it runs from.
    public func resolvingPaths(from base: String) -> FilterGraph {
        guard !base.isEmpty else { return self }
        var graph = self
        for chain in graph.chains.indices {
            for filter in graph.chains[chain].filters.indices {
                for option in graph.chains[chain].filters[filter].options.indices {
                    let value = graph.chains[chain].filters[filter].options[option]
                    guard value.isPath else { continue }
                    graph.chains[chain].filters[filter].options[option].value = FFmpegCommand.path(value.value, from: base)
                }
            }
        }
        return graph
    }
}

/// `[in]filter,filter[out]`.
public struct FilterChain: Codable, Equatable, Sendable, CustomStringConvertible {
    /// Pads consumed by the first filter.
    public var inputs: [GraphPad]
    /// Filters applied in order.
    public var filters: [Filter]
    /// Pads produced by the last filter.
    public var outputs: [GraphPad]

    /// Creates a chain.
    public init(_ inputs: [GraphPad], _ filters: [Filter], _ outputs: [GraphPad]) {
        self.inputs = inputs
        self.filters = filters
        self.outputs = outputs
    }

    /// The chain in filtergraph syntax.
    public var description: String {
        inputs.map { "[\($0)]" }.joined() + filters.map(\.description).joined(separator: ",") + outputs.map { "[\($0)]" }.joined()
    }
}

/// One filter with its options and the configuration that produced it.
public struct Filter: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The libavfilter name (`chromakey`).
    public var name: String
    /// Options in order; a nil key is a positional option.
    public var options: [FilterOption]
    /// Why it is there, for `onair plan` and DOT output ("key the person").
    public var purpose: String
    /// The YAML that asked for it, so libavfilter's complaints can point at it.
    public var origin: SourceLocation?
    /// Its instance name (`name@instance` in the graph), for a filter changed while the graph
    /// runs (`avfilter_graph_send_command` addresses it so): a named layer's `layer_NAME`.
    public var instance: String?

    /// Creates a filter.
    public init(_ name: String, _ options: [FilterOption] = [], purpose: String, origin: SourceLocation? = nil) {
        self.name = name
        self.options = options
        self.purpose = purpose
        self.origin = origin
    }

    /// `name=key=value:key=value` (`name@instance=…` with an instance name), each value
    /// escaped for both parsing levels.
    public var description: String {
        let head = instance.map { "\(name)@\($0)" } ?? name
        guard !options.isEmpty else { return head }
        return head + "=" + options.map { option in
            let value = FilterEscaping.graphLevel(FilterEscaping.optionLevel(option.value))
            return option.key.map { "\($0)=\(value)" } ?? value
        }.joined(separator: ":")
    }
}

/// An option of a filter.
public struct FilterOption: Codable, Hashable, Sendable {
    /// Name, or nil for a positional value.
    public var key: String?
    /// The value exactly as the filter should receive it.
    public var value: String
    /// True when the value is a project-relative path (see ``FilterGraph/resolvingPaths(from:)``).
    public var isPath: Bool

    /// Creates an option.
    public init(_ key: String?, _ value: String, isPath: Bool = false) {
        self.key = key
        self.value = value
        self.isPath = isPath
    }
}

/// Escaping for the two parsers a filter option value passes through: libavfilter's graph
/// parser (which splits on `[],;`) and the filter's option parser (which splits on `:` and `=`).
/// Both honour backslash escapes, so each level escapes its own specials plus `\` and `'`.
public enum FilterEscaping {
    /// Escapes a value for the option parser.
    public static func optionLevel(_ value: String) -> String {
        escape(value, specials: "\\':=")
    }

    /// Escapes filter arguments for the graph parser.
    public static func graphLevel(_ text: String) -> String {
        escape(text, specials: "\\'[],;")
    }

    /// `text` with a backslash before each of the (ASCII) `specials` and before a space that
    /// begins or ends it. Works on UTF-8 bytes: no byte of a multi-byte character is ASCII, and
    /// graph descriptions are escaped for every plan `validate` checks.
    static func escape(_ text: String, specials: String) -> String {
        let space = UInt8(ascii: " "), backslash = UInt8(ascii: "\\")
        var special = [Bool](repeating: false, count: 128)
        for byte in specials.utf8 where byte < 128 { special[Int(byte)] = true }
        let bytes = Array(text.utf8), last = bytes.count - 1
        func escaped(_ index: Int) -> Bool {
            let byte = bytes[index]
            return (byte < 128 && special[Int(byte)]) || (byte == space && (index == 0 || index == last))
        }
        guard bytes.indices.contains(where: escaped) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        for index in bytes.indices {
            if escaped(index) { out.append(backslash) }
            out.append(bytes[index])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes user text for drawtext's own expansion (`\` and `%`), before the two levels above.
    public static func drawtextLiteral(_ text: String) -> String {
        var out = ""
        for character in text {
            if character == "\\" || character == "%" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
