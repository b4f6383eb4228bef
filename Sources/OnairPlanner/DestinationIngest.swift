import Foundation
import OnairConfig

/// Where a destination's bytes go: the ingest URL (or file), the muxer and its options, and
/// the platform it streams to, checked against what that platform accepts.
struct DestinationIngest {
    /// The platform, named or recognised from a URL's host.
    var platform: PlatformSpec?
    /// URL template or path; `{key}` where the key goes.
    var target: String
    var kind: PlannedOutput.Kind
    /// libavformat muxer.
    var format: String
    var options: [FormatOption] = []
    /// The ingest protocol used, for network outputs.
    var ingestProtocol: String?

    /// Resolves where `spec` sends; nil (with diagnostics) when its platform can't be used.
    static func resolve(_ spec: DestinationSpec, catalogue: PlatformCatalogue, log: DiagnosticLog) -> DestinationIngest? {
        var ingest: DestinationIngest
        switch spec.kind {
        case .platform(let name, let server, let requested, _):
            guard let resolved = platform(name, server: server, protocol: requested, of: spec, catalogue: catalogue, log: log) else { return nil }
            ingest = resolved
        case .url(let url, _):
            ingest = Self.url(url, catalogue: catalogue, log: log)
        case .record(let path):
            ingest = recording(path)
        case .hls(let directory, let segmentMs, let playlistSize):
            ingest = DestinationIngest(target: directory.path + "/index.m3u8", kind: .hls, format: "hls", options: [
                FormatOption("hls_time", Units.formatDuration(segmentMs).replacingOccurrences(of: "s", with: "")),
                FormatOption("hls_list_size", String(playlistSize)),
                FormatOption("hls_flags", "delete_segments+independent_segments"),
                FormatOption("hls_segment_filename", directory.path + "/segment_%05d.ts", isPath: true),
            ])
        }
        if ingest.kind == .rtmp { ingest.options = [FormatOption("flvflags", "no_duration_filesize")] }
        return ingest
    }

    /// A recording: the muxer its file extension names.
    private static func recording(_ path: AssetPath) -> DestinationIngest {
        switch path.pathExtension {
        // A Matroska cluster or an MP4 fragment reaches the file only once closed: closed
        // every 0.4 s, not only at keyframes, a kill -9 loses less than half a second.
        case "mkv": DestinationIngest(target: path.path, kind: .recording, format: "matroska", options: [FormatOption("cluster_time_limit", "400")])
        case "mp4":
            DestinationIngest(target: path.path, kind: .recording, format: "mp4",
                              options: [FormatOption("movflags", "frag_keyframe+empty_moov+default_base_moof"), FormatOption("frag_duration", "400000")])
        default: DestinationIngest(target: path.path, kind: .recording, format: "mpegts")
        }
    }

    /// A URL destination; a URL on a catalogued platform's ingest host is that platform's, and
    /// must use a protocol it accepts.
    private static func url(_ url: Located<String>, catalogue: PlatformCatalogue, log: DiagnosticLog) -> DestinationIngest {
        let scheme = url.value.prefix { $0 != ":" }.lowercased()
        var ingest = DestinationIngest(target: url.value, kind: scheme == "srt" ? .srt : .rtmp, format: scheme == "srt" ? "mpegts" : "flv",
                                       ingestProtocol: scheme)
        let owners = catalogue.platforms.values.sorted { $0.name < $1.name }
        guard let urlHost = host(of: url.value),
              let owner = owners.first(where: { platform in platform.ingest.values.contains { host(of: $0) == urlHost } }) else { return ingest }
        ingest.platform = owner
        if let proto = PlatformSpec.IngestProtocol(rawValue: scheme), !owner.protocols.contains(proto) {
            log.error("platform-protocol", "\(owner.title) accepts only " + owner.protocols.map { $0.rawValue.uppercased() }.joined(separator: " or ") + "; \(scheme.uppercased()) is refused",
                      at: url.location, suggestion: "use kind: platform with platform: \(owner.name), or an \(owner.protocols[0].rawValue):// URL")
        }
        return ingest
    }

    /// A platform destination: the platform's ingest for the protocol asked for (or its first),
    /// on the destination's server when it names one.
    private static func platform(_ name: Located<String>, server: Located<String>?, protocol requested: Located<String>?, of spec: DestinationSpec,
                                 catalogue: PlatformCatalogue, log: DiagnosticLog) -> DestinationIngest? {
        guard let found = catalogue[name.value] else {
            log.error("unknown-reference", "unknown platform '\(name.value)'", at: name.location,
                      suggestion: Suggestion.phrase(for: name.value, in: catalogue.names) ?? "add it under 'platforms:' in Presets/")
            return nil
        }
        guard let chosen = ingestProtocol(of: found, requested: requested, at: name, log: log),
              let target = template(found.ingest[chosen]!, of: found, protocol: chosen, server: server, for: spec, log: log) else { return nil }
        return DestinationIngest(platform: found, target: target, kind: chosen == .srt ? .srt : .rtmp, format: chosen == .srt ? "mpegts" : "flv",
                                 ingestProtocol: chosen.rawValue)
    }

    /// The protocol `requested` (or the platform's first), when the platform accepts it.
    private static func ingestProtocol(of platform: PlatformSpec, requested: Located<String>?, at name: Located<String>,
                                       log: DiagnosticLog) -> PlatformSpec.IngestProtocol? {
        let offered = platform.protocols
        guard !offered.isEmpty else {
            log.error("no-ingest", "platform '\(platform.name)' has no ingest URL", at: name.location, suggestion: "add 'ingest:' to its definition")
            return nil
        }
        guard let requested else { return offered[0] }
        guard let wanted = PlatformSpec.IngestProtocol(rawValue: requested.value), offered.contains(wanted) else {
            let only = offered.map { $0.rawValue.uppercased() }.joined(separator: " or ")
            log.error("platform-protocol", "\(platform.title) accepts only \(only); \(requested.value.uppercased()) is refused",
                      at: requested.location, suggestion: "use protocol: \(offered[0].rawValue)")
            return nil
        }
        return wanted
    }

    /// The platform's ingest `template` on the destination's `server`: in place of `{server}`
    /// (which then must be given), or as the host of a fixed URL.
    private static func template(_ template: String, of platform: PlatformSpec, protocol chosen: PlatformSpec.IngestProtocol,
                                 server: Located<String>?, for spec: DestinationSpec, log: DiagnosticLog) -> String? {
        guard template.contains("{server}") else { return server.map { replacingHost(of: template, with: $0.value) } ?? template }
        guard let server else {
            log.error("missing-server", "\(platform.title) issues a server URL per account; destination '\(spec.name)' needs 'server:'",
                      at: spec.location, suggestion: "copy the server URL from the platform's live dashboard")
            return nil
        }
        if !server.value.lowercased().hasPrefix(chosen.rawValue + "://") {
            log.error("platform-protocol", "\(platform.title) accepts only \(chosen.rawValue.uppercased()); this server URL is not \(chosen.rawValue)://",
                      at: server.location, suggestion: "use the \(chosen.rawValue):// URL the platform gives")
        }
        var base = server.value
        if !template.hasPrefix("{server}/"), !base.hasSuffix("/") { base += "/" }
        return template.replacingOccurrences(of: "{server}", with: base)
    }

    /// A URL's host, lowercased; nil without one, or for a template's placeholder.
    static func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let host = authority.prefix { $0 != ":" }
        return host.isEmpty || host.contains("{") ? nil : host.lowercased()
    }

    /// `template` sent to `server` instead of its own host.
    static func replacingHost(of template: String, with server: String) -> String {
        guard let schemeEnd = template.range(of: "://") else { return template }
        let rest = template[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return template }
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        if base.contains("://"), let serverRest = base.range(of: "://"), base[serverRest.upperBound...].contains("/") {
            return base + "/" + (template.split(separator: "/").last.map(String.init) ?? PlannedOutput.keyPlaceholder)
        }
        return base + String(rest[slash...])
    }
}
