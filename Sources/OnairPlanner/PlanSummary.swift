import Foundation
import OnairConfig

/// The human-readable `onair plan` output: sources, active overlay, renditions, destinations
/// (keys shown only as their reference), egress and warnings.
public enum PlanSummary {
    /// Renders the summary.
    public static func render(_ plan: PipelinePlan) -> String {
        var lines: [String] = []
        lines.append("Pipeline \(plan.pipeline) — \(plan.title)")
        lines.append("  scene \(plan.canvas) @ \(plan.fps) fps, overlay '\(plan.activeOverlay)'")
        if let voice = plan.voice {
            lines.append("  voice: \(voice.summary), pitch ×\(String(format: "%.3f", voice.pitchRatio)) by rubberband"
                + " in each encoder's sound path while '\(plan.activeOverlay)' is on air")
        }
        lines += [""] + inputLines(plan)
        lines.append("")
        lines.append("Filter graph: \(plan.graph.filtersInOrder.count) filters in \(plan.graph.chains.count) chains (onair plan \(plan.pipeline) --format filtergraph)")
        for kernel in plan.graph.kernels {
            lines.append("  before the graph, input \(kernel.pad): \(kernel.purpose) (onair's own; ffmpeg: \(kernel.equivalent.map(\.name).joined(separator: ", ")))")
        }
        lines += [""] + renditionLines(plan) + [""] + destinationLines(plan)
        lines.append("")
        lines.append("Egress: \(megabits(plan.egressBitrate)) to the network, \(megabits(plan.diskBitrate)) to disk")
        lines.append(contentsOf: costLines(plan.cost))
        lines.append(contentsOf: latencyLines(plan.latencyEstimate))
        if !plan.warnings.isEmpty {
            lines.append("")
            lines.append("Warnings")
            for warning in plan.warnings { lines.append("  \(warning.location): \(warning.message)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The inputs, their failover groups and the sources left unopened.
    static func inputLines(_ plan: PipelinePlan) -> [String] {
        var lines = ["Inputs"]
        for input in plan.inputs {
            lines.append("  \(pad(String(input.index), 3))\(pad(input.name, 28))\(describe(input))")
        }
        for group in plan.failover {
            let backups = group.backups.map { plan.inputs[$0].name }
            let conditions = group.when.map(\.rawValue).joined(separator: ", ")
            lines.append("  failover: \(plan.inputs[group.primary].name) → " + (backups.isEmpty ? "(no backup)" : backups.joined(separator: ", "))
                + " on \(conditions) for \(Units.formatDuration(group.afterMs)), back after \(Units.formatDuration(group.clearMs)) clean (backups kept connected)")
        }
        if !plan.unusedSources.isEmpty {
            lines.append("  (not opened, unused by '\(plan.activeOverlay)': \(plan.unusedSources.joined(separator: ", ")))")
        }
        return lines
    }

    /// Each encoder: picture, bitrate, keyframes, crop, sound, and whom it feeds.
    static func renditionLines(_ plan: PipelinePlan) -> [String] {
        var lines = ["Renditions (one encoder each)"]
        for rendition in plan.renditions {
            let video = rendition.video
            var text = "\(video.width)x\(video.height) \(video.fps)fps \(video.codec) \(video.profile)"
            text += " \(Units.formatBitrate(video.bitrate)) \(video.rateControl.rawValue.uppercased()), keyframes every \(Units.formatDuration(video.keyframeIntervalMs)) (\(video.gopFrames) frames)"
            if let crop = rendition.crop { text += ", \(crop.aspect) crop at \(crop.x),\(crop.y)" }
            if let adaptive = video.adaptive { text += ", adaptive down to \(Units.formatBitrate(adaptive.minBitrate))" }
            if let audio = rendition.audio {
                text += "; \(audio.codec) \(Units.formatBitrate(audio.bitrate)) \(audio.sampleRate / 1000)kHz \(audio.channels == 1 ? "mono" : "stereo")"
                if let sound = rendition.sound { text += " of '\(sound)'" }
                if let track = rendition.vodTrack { text += ", VOD track of '\(track.sound)'" }
            } else {
                text += "; no audio"
            }
            lines.append("  \(pad(rendition.id, 4))\(text)")
            lines.append("      → \(rendition.destinations.joined(separator: ", "))\(rendition.preset.map { "  [\($0)]" } ?? "")")
        }
        return lines
    }

    /// Each output: platform or kind, rendition, bitrate, target (a key only as its reference).
    static func destinationLines(_ plan: PipelinePlan) -> [String] {
        var lines = ["Destinations"]
        for output in plan.outputs {
            let what = output.platform ?? output.kind.rawValue
            let target = output.target(withKey: "<key \(output.key?.description ?? "")>")
            lines.append("  \(pad(output.destination, 14))\(pad(what, 11))\(pad(output.rendition, 4))\(pad(megabits(output.bitrate), 11))\(target)\(output.required ? "" : "  (optional)")")
            if let ladder = output.ladder { lines.append("      " + describe(ladder)) }
        }
        return lines
    }

    /// The cost estimate: totals, then the terms that make up most of the CPU.
    static func costLines(_ cost: CostEstimate) -> [String] {
        guard cost.cpuCores > 0 else { return [] }
        var lines = ["", "Cost in real time (estimate): \(String(format: "%.2f", cost.cpuCores)) CPU cores, \(cost.mebibytes) MiB memory"]
        for term in cost.cpu.prefix(6) where term.amount >= 0.01 {
            lines.append("  \(pad(String(format: "%.2f", term.amount), 6))\(pad(term.component, 20))\(term.detail)")
        }
        lines.append("  (measured on \(cost.calibration); onair plan --format json lists every term)")
        return lines
    }

    /// The latency estimate: onair's part stage by stage, then each destination's viewers.
    static func latencyLines(_ estimate: LatencyEstimate) -> [String] {
        guard !estimate.stages.isEmpty else { return [] }
        var lines = ["", "Latency, glass to glass (estimate; latency: \(estimate.mode.rawValue)): onair adds \(estimate.onairMs) ms"]
        for stage in estimate.stages where stage.ms >= 0.5 {
            let held = stage.frames > 0 ? " (\(stage.frames) picture\(stage.frames == 1 ? "" : "s") held)" : ""
            lines.append("  \(pad(String(format: "%.0f ms", stage.ms), 8))\(pad(stage.stage, 12))\(stage.detail)\(held)")
        }
        for destination in estimate.destinations {
            let viewers = destination.totalMs.map { "\(seconds($0)) to viewers" } ?? "onair's part only: the receiver's is not known"
            lines.append("  \(pad(destination.destination, 14))\(viewers)\(destination.viewer.map { " (\($0))" } ?? "")")
        }
        lines.append("  (measured on \(estimate.calibration); the network to each ingest is not included)")
        return lines
    }

    /// `20.1 s`, `850 ms`.
    static func seconds(_ ms: Int) -> String {
        ms >= 1000 ? String(format: "%.1f s", Double(ms) / 1000) : "\(ms) ms"
    }

    /// `quality auto: 1080p30 4.6 Mb/s › 720p30 3.1 Mb/s — the first the link carries with 30 % to spare, measured at run start`.
    static func describe(_ ladder: QualityLadderPlan) -> String {
        let rungs = ladder.rungs.map { "\($0.name) \(megabits($0.bitrate))" }.joined(separator: " › ")
        let choice = ladder.chosen.map { "picked \($0) by measuring the link" }
            ?? "the first the link carries with 30 % to spare, measured at run start (planned: \(ladder.rungs.first?.name ?? ""))"
        return "quality auto: \(rungs) — \(choice)"
    }

    static func describe(_ input: PlannedInput) -> String {
        switch input.kind {
        case .lavfi(let graph): "synthetic  \(graph)"
        case .file(let path, let loop, let still): (still ? "image      " : "file       ") + path + (loop && !still ? " (looped)" : "")
        case .network(let url): "pull       \(url)"
        case .listen(let url): "listen     \(url)"
        case .device(let path, let format): "device     \(path) (\(format))"
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// `9.3 Mb/s`.
    public static func megabits(_ bitsPerSecond: Int) -> String {
        let value = Double(bitsPerSecond) / 1_000_000
        return String((value * 10).rounded() / 10) + " Mb/s"
    }
}

/// The plan as a Graphviz graph: inputs → filters → encoders → outputs.
public enum PlanGraphviz {
    /// Renders DOT text.
    public static func render(_ plan: PipelinePlan) -> String {
        var lines = ["digraph \"\(plan.pipeline)\" {", "  rankdir=LR;", "  node [fontname=\"Helvetica\", fontsize=10];"]
        func quote(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var producers: [GraphPad: String] = [:]
        for input in plan.inputs {
            let id = "input\(input.index)"
            lines.append("  \(id) [shape=box, style=filled, fillcolor=\"#dfefff\", label=\(quote("\(input.index): \(input.name)"))];")
            producers[.input(input.index, .video)] = id
            producers[.input(input.index, .audio)] = id
        }
        for (index, kernel) in plan.graph.kernels.enumerated() {
            let id = "kernel\(index)"
            lines.append("  \(id) [shape=ellipse, style=dashed, label=\(quote("\(kernel.purpose)\nonair kernel"))];")
            lines.append("  \(producers[kernel.pad] ?? quote(kernel.pad.label)) -> \(id) [label=\(quote(kernel.pad.label))];")
            producers[kernel.pad] = id
        }
        var filterIndex = 0
        for chain in plan.graph.chains {
            var previous: String?
            for (position, filter) in chain.filters.enumerated() {
                let id = "f\(filterIndex)"
                filterIndex += 1
                lines.append("  \(id) [shape=ellipse, label=\(quote("\(filter.name)\n\(filter.purpose)"))];")
                if position == 0 {
                    for input in chain.inputs { lines.append("  \(producers[input] ?? quote(input.label)) -> \(id) [label=\(quote(input.label))];") }
                } else if let previous {
                    lines.append("  \(previous) -> \(id);")
                }
                previous = id
            }
            for output in chain.outputs { producers[output] = previous }
        }
        for rendition in plan.renditions {
            let id = "enc_\(rendition.id)"
            lines.append("  \(id) [shape=box, style=filled, fillcolor=\"#fff2cc\", label=\(quote("\(rendition.id): \(rendition.video.encoder) \(rendition.video.width)x\(rendition.video.height) \(Units.formatBitrate(rendition.video.bitrate))"))];")
            if let producer = producers[rendition.videoPad] { lines.append("  \(producer) -> \(id);") }
            for pad in rendition.soundPads { if let producer = producers[pad] { lines.append("  \(producer) -> \(id);") } }
        }
        for output in plan.outputs {
            let id = "out_\(output.destination.map { $0.isLetter || $0.isNumber ? $0 : "_" }.map(String.init).joined())"
            lines.append("  \(id) [shape=box, style=filled, fillcolor=\"#e2f0d9\", label=\(quote("\(output.destination)\n\(output.platform ?? output.kind.rawValue)"))];")
            lines.append("  enc_\(output.rendition) -> \(id);")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }
}
