import Foundation
import OnairConfig
import OnairPlanner

/// What an export needs of one pipeline: its plan (inputs, outputs, keys by reference, cost)
/// and the project's configuration files it is read from.
public struct ExportedPipeline: Sendable {
    /// The compiled pipeline.
    public var plan: PipelinePlan
    /// The YAML the pipeline needs at run time: its own file and every preset file, by
    /// project-relative path (`Pipelines/demo.yaml`, `Presets/quality.yaml`).
    public var files: [ProjectFile]
    /// Its `notify:` targets: their last deliveries lengthen a stop (``DrainBudget``).
    public var notify: [NotifySpec]

    /// Creates an export input.
    public init(plan: PipelinePlan, files: [ProjectFile], notify: [NotifySpec] = []) {
        self.plan = plan
        self.files = files
        self.notify = notify
    }

    /// The pipeline's name as a DNS label (Kubernetes names, systemd unit names):
    /// lower case, `-` for anything but letters and digits.
    public var resourceName: String {
        let mapped = plan.pipeline.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let trimmed = String(mapped).split(separator: "-").joined(separator: "-")
        return "onair-" + String((trimmed.isEmpty ? "pipeline" : trimmed).prefix(40))
    }

    /// Every stream key reference the pipeline's outputs use, once each, in output order.
    var keyReferences: [(destinations: [String], key: KeySource)] {
        var references: [(destinations: [String], key: KeySource)] = []
        for output in plan.outputs {
            guard let key = output.key else { continue }
            if let index = references.firstIndex(where: { $0.key == key }) {
                references[index].destinations.append(output.destination)
            } else {
                references.append(([output.destination], key))
            }
        }
        return references
    }

    /// Folders recordings (and HLS) are written to, project-relative unless absolute, sorted.
    var recordingFolders: [String] {
        let folders = plan.outputs.filter { $0.kind == .recording || $0.kind == .hls }.map { output -> String in
            let parts = output.target.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            let folder = parts.joined(separator: "/")
            return folder.isEmpty ? "." : folder
        }
        return Array(Set(folders)).sorted()
    }

    /// Ports cameras push to: one per listening input.
    var listenPorts: [ListenPort] {
        plan.inputs.compactMap { input in
            guard case .listen(let url) = input.kind else { return nil }
            return ListenPort(url: url, source: input.name)
        }
    }

    /// Local files the plan reads (images, videos, the slate), project-relative unless absolute.
    var assetPaths: [String] {
        var paths: [String] = []
        for input in plan.inputs {
            if case .file(let path, _, _) = input.kind, !paths.contains(path) { paths.append(path) }
        }
        if let slate = plan.inputLoss.slatePath, !paths.contains(slate) { paths.append(slate) }
        return paths
    }
}

/// One configuration file of the project.
public struct ProjectFile: Equatable, Sendable {
    /// Project-relative path (`Pipelines/demo.yaml`).
    public var path: String
    /// Its text.
    public var text: String

    /// Creates a file.
    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// A port a camera pushes to: from a listening input's URL (`srt://0.0.0.0:9000`).
struct ListenPort: Equatable {
    /// `srt` or `rtmp`.
    var scheme: String
    /// The host it binds (`0.0.0.0`).
    var host: String
    var port: Int
    /// The source's name.
    var source: String

    /// SRT runs over UDP, RTMP over TCP.
    var transport: String { scheme == "srt" ? "UDP" : "TCP" }
    /// True when it binds loopback only, which nothing outside the machine (or pod) reaches.
    var isLoopback: Bool { ListenAddress(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port).isLoopback }

    init?(url: String, source: String) {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]) else {
            guard scheme == "rtmp" else { return nil }
            host = String(authority)
            self.port = 1935
            self.source = source
            return
        }
        host = String(authority[..<colon])
        self.port = port
        self.source = source
    }
}
