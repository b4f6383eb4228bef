import CFFmpeg

/// Builds a filter graph the way the engine will — a `buffer`/`abuffer` source for each pad
/// that reads a declared input, a `buffersink`/`abuffersink` for each declared output, the
/// description in between, connected as ``FilterGraphRunner`` connects them — and asks
/// libavfilter to configure it, so that mistakes surface before going on air, with libav's
/// own words and the filter they concern.
///
/// ```swift
/// let check = FilterGraphCheck(
///     "[0:v]scale=1280:720[v0];[1:a]aresample=48000[a0]",
///     inputs: [GraphInput("0:v", .video(width: 1920, height: 1080, frameRate: 30)),
///              GraphInput("1:a", .audio(sampleRate: 44100, channels: 2))],
///     outputs: [GraphOutput("v0", .video), GraphOutput("a0", .audio)])
/// switch check.run() {
/// case .success(let summary): print(summary.filters)
/// case .failure(let failure): print(failure)
/// }
/// ```
public struct FilterGraphCheck: Sendable {
    /// The description, in ffmpeg `-filter_complex` syntax.
    public var filtergraph: String
    /// What enters each input label the description may read (`0:v`, `2:a`...).
    public var inputs: [GraphInput]
    /// The labels the description must produce (`v0`, `a0`...).
    public var outputs: [GraphOutput]

    /// A check of `filtergraph` fed by `inputs` and feeding `outputs`.
    public init(_ filtergraph: String, inputs: [GraphInput], outputs: [GraphOutput]) {
        self.filtergraph = filtergraph
        self.inputs = inputs
        self.outputs = outputs
    }

    /// Builds and configures the graph, then frees it.
    ///
    /// A declared input the description never reads is not an error (it is listed in
    /// ``FilterGraphSummary/unusedInputs``); a declared output it never produces is.
    /// Safe to call from several threads at once: each call collects only its own log lines.
    public func run() -> Result<FilterGraphSummary, FilterGraphFailure> {
        LibAV.initialize()
        let declarationIssues = validateDeclarations()
        guard declarationIssues.isEmpty else {
            return .failure(FilterGraphFailure(stage: .declaration, issues: declarationIssues))
        }
        let (outcome, lines) = LibavLog.capturing { build() }
        let notable = lines.filter { $0.level >= .warning }
        switch outcome {
        case var .success(summary):
            summary.warnings = notable
            return .success(summary)
        case var .failure(failure):
            failure.log = notable
            failure.filter = blame(failure)
            return .failure(failure)
        }
    }

    // MARK: - Steps

    private func validateDeclarations() -> [GraphIssue] {
        var issues: [GraphIssue] = []
        for label in Self.duplicates(inputs.map(\.label)) + Self.duplicates(outputs.map(\.label)) {
            issues.append(.duplicateDeclaration(label: label))
        }
        for input in inputs {
            func invalid(_ reason: String) { issues.append(.invalidDeclaration(label: input.label, reason: reason)) }
            switch input.media {
            case let .video(width, height, frameRate, pixelFormat):
                if width <= 0 || height <= 0 { invalid("picture size \(width)x\(height) is not positive") }
                if frameRate.numerator <= 0 || frameRate.denominator <= 0 { invalid("frame rate \(frameRate) is not positive") }
                if av_get_pix_fmt(pixelFormat) == AV_PIX_FMT_NONE { invalid("unknown pixel format '\(pixelFormat)'") }
            case let .audio(sampleRate, channels, sampleFormat):
                if sampleRate <= 0 { invalid("sample rate \(sampleRate) is not positive") }
                if channels <= 0 || channels > 64 { invalid("channel count \(channels) is not between 1 and 64") }
                if av_get_sample_fmt(sampleFormat) == AV_SAMPLE_FMT_NONE { invalid("unknown sample format '\(sampleFormat)'") }
            }
        }
        return issues
    }

    private func build() -> Result<FilterGraphSummary, FilterGraphFailure> {
        let graph: FilterGraph
        let open: (inputs: [OpenPad], outputs: [OpenPad])
        do {
            graph = try FilterGraph(threads: 1)  // a check needs no worker threads
            open = try graph.parse(filtergraph)
        } catch {
            return .failure(FilterGraphFailure(stage: .parsing, error: error))
        }

        let issues = linkingIssues(open)
        let used = Set(open.inputs.compactMap(\.label))
        let unused = inputs.map(\.label).filter { !used.contains($0) }
        let filters = graph.parsedFilters
        guard issues.isEmpty else {
            return .failure(FilterGraphFailure(stage: .linking, issues: issues, filters: filters, unusedInputs: unused))
        }

        do {
            // Without issues every open pad carries a declared label: connecting leaves none open.
            _ = try graph.connect(open, inputs: inputs.map { ($0, nil) }, outputs: outputs)
        } catch {
            return .failure(FilterGraphFailure(stage: .linking, error: error, filters: filters, unusedInputs: unused))
        }

        do {
            try graph.configure()
        } catch {
            return .failure(FilterGraphFailure(stage: .configuration, error: error, filters: filters, unusedInputs: unused))
        }
        return .success(FilterGraphSummary(filters: filters, unusedInputs: unused, warnings: [], conversions: graph.insertedConversions()))
    }

    /// What keeps the open pads of the parsed description and the declarations from fitting
    /// together: pads without a label or with an undeclared one, outputs produced twice or
    /// never, media that differ from what was declared.
    private func linkingIssues(_ open: (inputs: [OpenPad], outputs: [OpenPad])) -> [GraphIssue] {
        let declaredInputs = Dictionary(inputs.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        let declaredOutputs = Dictionary(outputs.map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        var issues: [GraphIssue] = []
        for pad in open.inputs {
            guard let label = pad.label else {
                issues.append(.unlabelledInput(consumer: pad.owner))
                continue
            }
            guard let input = declaredInputs[label] else {
                issues.append(.undeclaredInput(label: label, consumer: pad.owner))
                continue
            }
            if let actual = pad.kind, actual != input.media.kind {
                issues.append(.mediaMismatch(label: label, declared: input.media.kind, actual: actual, filter: pad.owner))
            }
        }
        var produced: Set<String> = []
        for pad in open.outputs {
            guard let label = pad.label else {
                issues.append(.unlabelledOutput(producer: pad.owner))
                continue
            }
            guard let output = declaredOutputs[label] else {
                issues.append(.undeclaredOutput(label: label, producer: pad.owner))
                continue
            }
            guard produced.insert(label).inserted else {
                issues.append(.duplicateOutput(label: label, producer: pad.owner))
                continue
            }
            if let actual = pad.kind, actual != output.kind {
                issues.append(.mediaMismatch(label: label, declared: output.kind, actual: actual, filter: pad.owner))
            }
        }
        for output in outputs where !open.outputs.contains(where: { $0.label == output.label }) {
            issues.append(.missingOutput(label: output.label))
        }
        return issues
    }

    /// The filter a failure is most likely about: the first error line whose context (or the
    /// context's parent) is a filter of the description, else such a warning line, else the
    /// first issue's filter, else the filter an error message names (`Parsed_x_N`, or
    /// `No such filter: 'x'` / `Error initializing filter 'x' with args 'y'` located in the
    /// description).
    private func blame(_ failure: FilterGraphFailure) -> FilterInstance? {
        let outline = FilterGraphOutline(filtergraph)
        let known = failure.filters.isEmpty ? outline.instances : failure.filters
        let byName = Dictionary(known.map { ($0.instanceName, $0) }, uniquingKeysWith: { first, _ in first })
        func owner(of line: LibavLogLine) -> FilterInstance? {
            for name in [line.parentContext, line.context].compactMap({ $0 }) {
                if let instance = byName[name] { return instance }
            }
            return nil
        }
        for threshold in [LibavLogLevel.error, .warning] {
            if let instance = failure.log.lazy.filter({ $0.level >= threshold }).compactMap(owner).first {
                return instance
            }
        }
        if let instance = failure.issues.lazy.compactMap(\.filter).first {
            return instance
        }
        for line in failure.log where line.level >= .error {
            if let instance = FilterInstance.firstMentioned(in: line.message) {
                return byName[instance.instanceName] ?? instance
            }
            let quoted = Self.quotedStrings(in: line.message)
            if line.message.hasPrefix("No such filter: "), let name = quoted.first,
               let entry = outline.first(named: name) {
                return FilterInstance(filterName: entry.filterName, index: entry.index, instanceName: entry.instanceName)
            }
            if line.message.hasPrefix("Error initializing filter "), quoted.count == 2,
               let entry = outline.first(named: quoted[0], arguments: quoted[1]) {
                return FilterInstance(filterName: entry.filterName, index: entry.index, instanceName: entry.instanceName)
            }
        }
        return nil
    }

    /// The texts between single quotes, in order: `a 'b' c 'd'` → `["b", "d"]`.
    private static func quotedStrings(in message: String) -> [String] {
        message.split(separator: "'", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .dropLast(message.filter { $0 == "'" }.count % 2 == 1 ? 1 : 0)
    }

    private static func duplicates(_ labels: [String]) -> [String] {
        var seen: Set<String> = []
        var reported: Set<String> = []
        return labels.filter { !seen.insert($0).inserted && reported.insert($0).inserted }
    }
}

/// What a successful ``FilterGraphCheck`` learned.
public struct FilterGraphSummary: Sendable, Hashable {
    /// The filters of the description, in order (their ``FilterInstance/index`` is their position).
    public var filters: [FilterInstance]
    /// Declared input labels the description never reads.
    public var unusedInputs: [String]
    /// libav lines of level warning or worse logged while building the graph.
    public var warnings: [LibavLogLine]
    /// The converters libavfilter inserted where two filters agreed on no common format: each
    /// costs a pass over every frame through it (a still repeated by `loop` is converted once).
    public var conversions: [FormatConversion] = []
}

/// A converter (`auto_scale_N`, `auto_aresample_N`) that format negotiation put between two
/// filters.
public struct FormatConversion: Sendable, Hashable, CustomStringConvertible {
    /// The filter the converter reads from (`nil` for a buffer source: `in_0:v`).
    public var after: FilterInstance?
    /// The filter it feeds (`nil` for a sink).
    public var before: FilterInstance?
    /// The pixel or sample format it converts from and to, e.g. `"rgba"`, `"yuva420p"`.
    public var from: String
    public var to: String

    /// E.g. `"rgba → yuva420p before Parsed_format_17"`.
    public var description: String {
        "\(from) → \(to)" + (before.map { " before \($0.instanceName)" } ?? "") + (after.map { " after \($0.instanceName)" } ?? "")
    }
}

/// The step of a ``FilterGraphCheck`` that failed.
public enum FilterGraphStage: Sendable, Hashable, CustomStringConvertible {
    /// The declared inputs and outputs are inconsistent; libav was not called.
    case declaration
    /// libavfilter rejected the description (`avfilter_graph_parse2`): syntax, unknown
    /// filter, unknown or invalid option.
    case parsing
    /// The labels of the description and the declared inputs/outputs do not fit together.
    case linking
    /// libavfilter could not configure the graph (`avfilter_graph_config`): format
    /// negotiation, an option only checked then, a missing font...
    case configuration

    /// `"declaration"`, `"parsing"`, `"linking"` or `"configuration"`.
    public var description: String {
        switch self {
        case .declaration: "declaration"
        case .parsing: "parsing"
        case .linking: "linking"
        case .configuration: "configuration"
        }
    }
}

/// Why a ``FilterGraphCheck`` failed.
public struct FilterGraphFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step that failed.
    public var stage: FilterGraphStage
    /// The libav call that failed and its code, when a libav call failed (not for label issues).
    public var error: LibavError?
    /// Label and declaration problems, for the ``FilterGraphStage/declaration`` and
    /// ``FilterGraphStage/linking`` stages.
    public var issues: [GraphIssue]
    /// libav's lines of level warning or worse, in order: usually where the real reason is.
    public var log: [LibavLogLine]
    /// The filter the failure most likely concerns (first error line naming one, else the
    /// first issue's filter, else the unknown filter's position in the description).
    public var filter: FilterInstance?
    /// The filters the description was parsed into (empty when parsing failed).
    public var filters: [FilterInstance]
    /// Declared input labels the description never reads (known once parsing succeeded).
    public var unusedInputs: [String]

    /// A failure at `stage`; ``FilterGraphCheck`` fills in the rest.
    init(
        stage: FilterGraphStage, error: LibavError? = nil, issues: [GraphIssue] = [],
        log: [LibavLogLine] = [], filter: FilterInstance? = nil,
        filters: [FilterInstance] = [], unusedInputs: [String] = []
    ) {
        self.stage = stage
        self.error = error
        self.issues = issues
        self.log = log
        self.filter = filter
        self.filters = filters
        self.unusedInputs = unusedInputs
    }

    /// The lines of level error or worse.
    public var errors: [LibavLogLine] {
        log.filter { $0.level >= .error }
    }

    /// Several lines: what failed, then each issue and libav line.
    public var description: String {
        var text = "filter graph \(stage) failed"
        if let filter { text += " at \(filter)" }
        if let error { text += ": \(error)" }
        for issue in issues { text += "\n  \(issue)" }
        for line in log { text += "\n  \(line)" }
        return text
    }
}
