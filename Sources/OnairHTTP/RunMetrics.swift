import Foundation
import Metrics
import OnairControl
import OnairNotify
import OnairProcess
import OnairRecord
import Prometheus
import Synchronization

/// The run's Prometheus metrics (`GET /metrics`), brought up to date from a status snapshot at
/// each scrape: nothing is spent between scrapes.
///
/// Counters are swift-metrics counters backed by swift-prometheus: each scrape adds what the
/// run counted since the last one, so they only ever grow (a snapshot that reads lower than the
/// last one adds nothing). Gauges are set. Names follow Prometheus' conventions: the `onair_`
/// prefix, base units (bytes, seconds), `_total` for counters; an enumeration (a state) is one
/// series per value, 1 for the current one.
final class RunMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let state = Mutex(Seen())

    /// What the counters were last brought to, by series, and each series' metric object
    /// (swift-metrics handlers, themselves thread-safe).
    private struct Seen {
        var counters: [String: Double] = [:]
        var metrics: [String: any AnyObject & Sendable] = [:]
    }

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
    }

    /// Every metric, documented: the README's table is this list.
    static let catalogue: [(name: String, type: String, labels: String, help: String)] = [
        (
            "onair_run_state", "gauge", "pipeline, state",
            "1 for the state the run is in (preparing, starting, live, switching, draining, stopped, failed), else 0"
        ),
        ("onair_run_start_time_seconds", "gauge", "pipeline", "When the run started, seconds since the Unix epoch"),
        ("onair_run_uptime_seconds", "gauge", "pipeline", "Seconds since the run started"),
        ("onair_overlay_on_air", "gauge", "overlay", "1 for the overlay combination on air, else 0"),
        ("onair_overlay_available", "gauge", "overlay", "1 when the overlay combination can go on air, else 0"),
        ("onair_overlay_failed", "gauge", "overlay", "1 while the overlay combination has failed and its camera stands in for it, else 0"),
        (
            "onair_input_state", "gauge", "input, label, kind, state",
            "1 for the state the input is in (idle, waiting, connected, lost, failed, ended), else 0; label tells two inputs of one source apart"
        ),
        ("onair_input_losses_total", "counter", "input, label, kind", "Times the input was lost"),
        (
            "onair_failover_on_air", "gauge", "input, member",
            "1 for the member (the input itself or one of its backups) that feeds the input's place, else 0"
        ),
        ("onair_failover_switches_total", "counter", "input", "Cuts between the input and its backups"),
        ("onair_rendition_frames_total", "counter", "rendition", "Frames encoded"),
        (
            "onair_rendition_repeated_frames_total", "counter", "rendition",
            "Pictures repeated to keep the frame rate across overlay switches"
        ),
        ("onair_rendition_frames_per_second", "gauge", "rendition", "Frames encoded per second, lately"),
        ("onair_rendition_speed_ratio", "gauge", "rendition", "Encoding speed against the clock (1 is real time)"),
        ("onair_rendition_target_bits_per_second", "gauge", "rendition", "The video encoder's target bitrate now (adaptive bitrate moves it)"),
        ("onair_rendition_width_pixels", "gauge", "rendition", "Picture width"),
        ("onair_rendition_height_pixels", "gauge", "rendition", "Picture height"),
        (
            "onair_destination_state", "gauge", "destination, state",
            "1 for the state the destination is in (idle, connecting, live, retrying, failed, stopped), else 0"
        ),
        ("onair_destination_required", "gauge", "destination", "1 when the broadcast fails if this destination fails for good"),
        ("onair_destination_sent_bytes_total", "counter", "destination", "Bytes written to the destination"),
        ("onair_destination_sent_packets_total", "counter", "destination", "Packets written to the destination"),
        (
            "onair_destination_dropped_packets_total", "counter", "destination",
            "Packets dropped before they could be sent (queue overflow, outages)"
        ),
        ("onair_destination_dropped_gops_total", "counter", "destination", "Groups of pictures that lost at least one packet"),
        ("onair_destination_reconnects_total", "counter", "destination", "Connections re-established after a loss"),
        ("onair_destination_send_bits_per_second", "gauge", "destination", "Send rate over the last 2 seconds"),
        ("onair_destination_queue_bytes", "gauge", "destination", "Bytes waiting in the destination's queue"),
        ("onair_destination_queue_seconds", "gauge", "destination", "Media time waiting in the destination's queue"),
        ("onair_destination_round_trip_seconds", "gauge", "destination", "The connection's round trip (SRT destinations; RTMP ones of an adaptive rendition)"),
        ("onair_destination_srt_retransmitted_packets_total", "counter", "destination", "SRT packets sent again after a loss"),
        (
            "onair_destination_srt_dropped_packets_total", "counter", "destination",
            "SRT packets dropped as too late for the receiver's latency: media the destination never got"
        ),
        ("onair_mix_loudness_lufs", "gauge", "mix, window", "A mix's loudness (EBU R 128): momentary (400 ms), short_term (3 s) or integrated (since the start)"),
        ("onair_mix_loudness_range_lu", "gauge", "mix", "A mix's loudness range since the start (EBU R 128 LRA)"),
        ("onair_mix_true_peak_dbtp", "gauge", "mix", "A mix's highest true peak over the last second"),
        ("onair_mix_max_true_peak_dbtp", "gauge", "mix", "A mix's highest true peak since the start"),
        ("onair_process_cpu_seconds_total", "counter", "", "CPU time of the onair process, user and system"),
        ("onair_process_resident_memory_bytes", "gauge", "", "Resident memory of the onair process"),
        (
            "onair_process_allocated_memory_bytes", "gauge", "",
            "Memory in live allocations (the allocator's count); resident memory far above it is held by the allocator, not leaked"
        ),
        ("onair_notify_sent_total", "counter", "target", "Alerts the notify: target's receiver took (2xx)"),
        ("onair_notify_failed_total", "counter", "target", "Alerts given up after every attempt failed (or a 410 Gone)"),
        ("onair_notify_dropped_total", "counter", "target", "Alerts dropped unsent: the oldest of a full queue, or left when the run ended"),
        (
            "onair_events_dropped_total", "counter", "subscriber, event",
            "Events a subscriber of the run dropped because it did not keep up (alerts and the record never drop a lifecycle event)"
        ),
    ]

    /// The Prometheus text exposition after bringing every metric up to `status` and the
    /// alert deliveries `notifications`.
    func exposition(of status: RunStatus, notifications: [DeliveryCounts] = []) -> String {
        state.withLock { seen in
            update(&seen, from: status)
            for dropped in status.eventsDropped {
                counter(&seen, "onair_events_dropped_total", [("subscriber", dropped.subscriber), ("event", dropped.event)], Double(dropped.count))
            }
            for target in notifications {
                let labels = [("target", target.target)]
                counter(&seen, "onair_notify_sent_total", labels, Double(target.sent))
                counter(&seen, "onair_notify_failed_total", labels, Double(target.failed))
                counter(&seen, "onair_notify_dropped_total", labels, Double(target.dropped))
            }
            return Self.documented(registry.emitToString())
        }
    }

    private static let help = Dictionary(uniqueKeysWithValues: catalogue.map { ($0.name, $0.help) })

    /// The exposition with a `# HELP` line before each `# TYPE` line (swift-metrics has no
    /// place for help texts).
    static func documented(_ exposition: String) -> String {
        var lines: [Substring] = []
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first, let text = help[String(name)] {
                lines.append("# HELP \(name) \(text)")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// Brings every series of the run up to `status`, and the process's own.
    private func update(_ seen: inout Seen, from status: RunStatus) {
        updateRun(&seen, from: status)
        updateInputs(&seen, from: status)
        for rendition in status.renditions { update(&seen, rendition) }
        for destination in status.destinations { update(&seen, destination) }
        for level in status.loudness { update(&seen, level) }
        let usage = ProcessUsage.now()
        counter(&seen, "onair_process_cpu_seconds_total", [], usage.cpuSeconds)
        gauge(&seen, "onair_process_resident_memory_bytes", [], Double(usage.residentBytes))
        if let allocated = usage.allocatedBytes {
            gauge(&seen, "onair_process_allocated_memory_bytes", [], Double(allocated))
        }
    }

    /// A mix's meter.
    private func update(_ seen: inout Seen, _ level: MixLoudness) {
        let labels = [("mix", level.mix)]
        for (window, value) in [("momentary", level.momentary), ("short_term", level.shortTerm), ("integrated", level.integrated)] {
            gauge(&seen, "onair_mix_loudness_lufs", labels + [("window", window)], value)
        }
        gauge(&seen, "onair_mix_loudness_range_lu", labels, level.range)
        gauge(&seen, "onair_mix_true_peak_dbtp", labels, level.truePeak)
        gauge(&seen, "onair_mix_max_true_peak_dbtp", labels, level.maxTruePeak)
    }

    /// The run's state and times, and the overlay combinations.
    private func updateRun(_ seen: inout Seen, from status: RunStatus) {
        let run = [("pipeline", status.pipeline)]
        for runState in RunState.allCases {
            gauge(&seen, "onair_run_state", run + [("state", runState.rawValue)], status.state == runState ? 1 : 0)
        }
        gauge(&seen, "onair_run_start_time_seconds", run, status.startedAt.timeIntervalSince1970)
        gauge(&seen, "onair_run_uptime_seconds", run, status.elapsed.inSeconds)
        for overlay in status.overlays {
            gauge(&seen, "onair_overlay_on_air", [("overlay", overlay.name)], overlay.onAir ? 1 : 0)
            gauge(&seen, "onair_overlay_available", [("overlay", overlay.name)], overlay.available ? 1 : 0)
            gauge(&seen, "onair_overlay_failed", [("overlay", overlay.name)], status.fallback?.overlay == overlay.name ? 1 : 0)
        }
    }

    /// The inputs and their failover groups.
    private func updateInputs(_ seen: inout Seen, from status: RunStatus) {
        for input in status.inputs {
            let labels = [("input", input.name), ("label", input.label), ("kind", input.kind)]
            for inputState in InputState.allCases {
                gauge(&seen, "onair_input_state", labels + [("state", inputState.rawValue)], input.state == inputState ? 1 : 0)
            }
            counter(&seen, "onair_input_losses_total", labels, Double(input.losses))
        }
        for group in status.failover {
            for member in [group.input] + group.backups {
                gauge(&seen, "onair_failover_on_air", [("input", group.input), ("member", member)], group.onAir == member ? 1 : 0)
            }
            counter(&seen, "onair_failover_switches_total", [("input", group.input)], Double(group.switches))
        }
    }

    /// A rendition's counts, rate and picture.
    private func update(_ seen: inout Seen, _ rendition: RenditionStatus) {
        let labels = [("rendition", rendition.id)]
        counter(&seen, "onair_rendition_frames_total", labels, Double(rendition.frames))
        counter(&seen, "onair_rendition_repeated_frames_total", labels, Double(rendition.repeated))
        gauge(&seen, "onair_rendition_frames_per_second", labels, rendition.fps)
        gauge(&seen, "onair_rendition_speed_ratio", labels, rendition.speed)
        gauge(&seen, "onair_rendition_target_bits_per_second", labels, Double(rendition.bitrate))
        gauge(&seen, "onair_rendition_width_pixels", labels, Double(rendition.width))
        gauge(&seen, "onair_rendition_height_pixels", labels, Double(rendition.height))
    }

    /// A destination's state, counts, queue and link.
    private func update(_ seen: inout Seen, _ destination: DestinationStatus) {
        let labels = [("destination", destination.name)]
        for name in DestinationState.names {
            gauge(&seen, "onair_destination_state", labels + [("state", name)], destination.state.name == name ? 1 : 0)
        }
        gauge(&seen, "onair_destination_required", labels, destination.required ? 1 : 0)
        let stats = destination.stats
        counter(&seen, "onair_destination_sent_bytes_total", labels, Double(stats.bytesSent))
        counter(&seen, "onair_destination_sent_packets_total", labels, Double(stats.packetsSent))
        counter(&seen, "onair_destination_dropped_packets_total", labels, Double(stats.packetsDropped))
        counter(&seen, "onair_destination_dropped_gops_total", labels, Double(stats.gopsDropped))
        counter(&seen, "onair_destination_reconnects_total", labels, Double(stats.reconnects))
        gauge(&seen, "onair_destination_send_bits_per_second", labels, stats.bitsPerSecond)
        gauge(&seen, "onair_destination_queue_bytes", labels, Double(destination.queueBytes))
        gauge(&seen, "onair_destination_queue_seconds", labels, Double(destination.queueMilliseconds) / 1000)
        if let link = destination.link {
            gauge(&seen, "onair_destination_round_trip_seconds", labels, link.roundTripMilliseconds / 1000)
            if let retransmitted = link.retransmittedPackets {
                counter(&seen, "onair_destination_srt_retransmitted_packets_total", labels, Double(retransmitted))
            }
            if let dropped = link.lateDroppedPackets { counter(&seen, "onair_destination_srt_dropped_packets_total", labels, Double(dropped)) }
        }
    }

    private static func key(_ name: String, _ labels: [(String, String)]) -> String {
        name + "\u{0}" + labels.map { "\($0.0)=\($0.1)" }.joined(separator: "\u{0}")
    }

    /// Adds to the counter `name{labels}` what `total` counts beyond what it was last brought to.
    private func counter(_ seen: inout Seen, _ name: String, _ labels: [(String, String)], _ total: Double) {
        let key = Self.key(name, labels)
        let metric = Self.metric(&seen, key) { FloatingPointCounter(label: name, dimensions: labels, factory: factory) }
        let added = total - (seen.counters[key] ?? 0)
        guard added > 0, total.isFinite else { return }
        metric.increment(by: added)
        seen.counters[key] = total
    }

    private func gauge(_ seen: inout Seen, _ name: String, _ labels: [(String, String)], _ value: Double) {
        let metric = Self.metric(&seen, Self.key(name, labels)) { Metrics.Gauge(label: name, dimensions: labels, factory: factory) }
        metric.record(value.isFinite ? value : 0)
    }

    /// The series' metric object, made on its first scrape.
    private static func metric<Metric: AnyObject & Sendable>(_ seen: inout Seen, _ key: String, make: () -> Metric) -> Metric {
        if let existing = seen.metrics[key] as? Metric { return existing }
        let made = make()
        seen.metrics[key] = made
        return made
    }
}

extension DestinationState {
    /// Every state's name, for one series per state.
    static let names = ["idle", "connecting", "live", "retrying", "failed", "stopped"]
}

