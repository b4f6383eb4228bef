import ArgumentParser
import Foundation
import OnairConfig
import OnairExport
import OnairPlanner
import OnairValidation

/// `onair export kubernetes|systemd`: run pipelines on an orchestrator.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what runs pipelines on Kubernetes or systemd.",
        discussion: "Stream keys appear only as references (Secret keys, an environment file), never as values.",
        subcommands: [Kubernetes.self, Systemd.self])

    /// `onair export kubernetes NAME|--all`.
    struct Kubernetes: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Kubernetes manifests: Deployment (1 replica, Recreate), ConfigMap, Services, recordings volume.",
            discussion: """
                The pod runs 'onair run NAME --http 0.0.0.0:PORT' with its stream keys and API token (ONAIR_API_TOKEN) \
                from a Secret named onair-NAME-keys that you create; the manifests start with the kubectl command.
                """)

        @OptionGroup var projectOptions: ProjectOptions

        @Argument(help: "The pipeline's name (Pipelines/NAME.yaml).")
        var name: String?

        @Flag(help: "Every pipeline of the project.")
        var all = false

        @Option(help: "The container image: onair with the project's assets (see Dockerfile).")
        var image = "onair:0.1.0"

        @Option(help: "The HTTP API's port in the pod.")
        var httpPort = 8750

        @Option(help: "Write onair-NAME.yaml files into this folder instead of printing.")
        var output: String?

        func validate() throws {
            guard (name == nil) != !all else { throw ValidationError("name a pipeline or give --all") }
            guard (1...65535).contains(httpPort) else { throw ValidationError("--http-port must be 1-65535") }
        }

        func run() throws {
            let names = try all ? projectOptions.allPipelineNames() : [name!]
            let options = KubernetesManifests.Options(image: image, httpPort: httpPort)
            let rendered = try names.map { name in
                let manifests = KubernetesManifests(try projectOptions.exported(name), options: options)
                return (file: manifests.pipeline.resourceName + ".yaml", text: manifests.render())
            }
            try ExportOutput.write(rendered, to: output)
        }
    }

    /// `onair export systemd NAME`.
    struct Systemd: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A hardened systemd service unit (onair-NAME.service) for one pipeline.",
            discussion: "Keys come from a root-owned 0600 environment file, /etc/onair/NAME.env; the unit starts with how to install it.")

        @OptionGroup var projectOptions: ProjectOptions

        @Argument(help: "The pipeline's name (Pipelines/NAME.yaml).")
        var name: String

        @Option(help: "The onair executable on the host.")
        var executable = "/usr/local/bin/onair"

        @Option(help: "The project folder on the host (default: this project's absolute path).")
        var projectPath: String?

        @Option(help: "Serve the HTTP API at HOST:PORT (default: loopback, a free port). Beyond loopback, the token comes from ONAIR_API_TOKEN in the environment file.")
        var http: String?

        @Option(help: "The user and group the service runs as.")
        var user = "onair"

        @Option(help: "Write onair-NAME.service into this folder instead of printing.")
        var output: String?

        func run() throws {
            let options = SystemdUnit.Options(executable: executable, projectPath: projectPath ?? projectOptions.root.path, http: http, user: user)
            let unit = SystemdUnit(try projectOptions.exported(name), options: options)
            try ExportOutput.write([(unit.fileName, unit.render())], to: output)
        }
    }
}

/// Where an export goes: standard output, or one file each in a folder.
enum ExportOutput {
    static func write(_ files: [(file: String, text: String)], to folder: String?) throws {
        guard let folder else {
            print(files.map(\.text).joined(separator: "\n"), terminator: "")
            return
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in files {
            let path = (folder as NSString).appendingPathComponent(file.file)
            try file.text.write(toFile: path, atomically: true, encoding: .utf8)
            FileHandle.standardError.write(Data("wrote \(path)\n".utf8))
        }
    }
}

extension ProjectOptions {
    /// Every pipeline file of the project, sorted.
    func allPipelineNames() throws -> [String] {
        let names = Project.pipelineFileNames(in: root)
        guard !names.isEmpty else { throw ValidationError("no pipelines in \(project)/Pipelines") }
        return names
    }

    /// The pipeline `name` compiled for export, with the configuration files it runs from: its
    /// own (or the built-in one's text) and every preset file.
    func exported(_ name: String) throws -> ExportedPipeline {
        let compiled = try compile(try PipelineChoice.parse([name]), mode: .validate)
        var files: [ProjectFile] = []
        let folder = root.appendingPathComponent("Pipelines")
        if let file = ["yaml", "yml"].map({ folder.appendingPathComponent("\(name).\($0)") }).first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            files.append(ProjectFile(path: "Pipelines/" + file.lastPathComponent, text: try String(contentsOf: file, encoding: .utf8)))
        } else if let text = BuiltinPipelines.all[name] {
            files.append(ProjectFile(path: "Pipelines/\(name).yaml", text: text))
        }
        let presets = root.appendingPathComponent("Presets")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: presets.path)) ?? []).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        for preset in names {
            files.append(ProjectFile(path: "Presets/" + preset, text: try String(contentsOf: presets.appendingPathComponent(preset), encoding: .utf8)))
        }
        return ExportedPipeline(plan: compiled.plan, files: files, notify: compiled.pipeline.notify)
    }
}
