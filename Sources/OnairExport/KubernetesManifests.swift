import Foundation
import OnairConfig
import OnairPlanner

/// `onair export kubernetes`: the manifests that run one pipeline as an ordinary Kubernetes
/// workload.
///
/// - A Deployment with one replica and the `Recreate` strategy: a rollout stops the old pod
///   (within the grace period) before the new one starts, so two pods never publish to one
///   stream key. A node that stops answering is the case `Recreate` does not cover: after 5
///   minutes Kubernetes evicts its pods and the ReplicaSet starts a replacement while the old
///   pod may still be publishing from a node cut off only from the control plane. The pod
///   therefore tolerates `unreachable`/`not-ready` forever: it is replaced once the node is
///   known to be gone (its Node object deleted, as cloud node controllers do for a deleted
///   machine, or the pod deleted by an operator), never on a guess. A `coordination.k8s.io`
///   Lease would only help if onair itself renewed it and stopped publishing when renewal
///   failed; onair does not talk to the API server, so a Lease object would promise nothing.
/// - The project's YAML in a ConfigMap (its digest in the pod template, so a change rolls
///   the pod); assets (images, the slate) come with the image, as a layer on top of the
///   onair image: they change with a release, and an image is immutable and versioned.
/// - Stream keys and the API token only as `secretKeyRef`s to a Secret the operator creates.
/// - Probes on the HTTP API: startup and liveness on `/healthz`, readiness on `/readyz`.
/// - Requests and limits from the plan's cost estimate.
/// - A Service for the HTTP API (with Prometheus scrape annotations) and, when cameras push
///   to the pipeline, one for its listening ports (SRT over UDP, RTMP over TCP).
/// - Non-root, read-only root filesystem, no privilege escalation, no capabilities; writable
///   volumes only for recordings and the record of runs (one PersistentVolumeClaim), the
///   runtime folder and `/tmp`.
public struct KubernetesManifests: Sendable {
    /// Settings of an export.
    public struct Options: Sendable {
        /// The container image (onair plus the project's assets).
        public var image: String
        /// The HTTP API's port in the pod.
        public var httpPort: Int
        /// How long stopping may take.
        public var drain: DrainBudget
        /// Hours of recordings the volume holds (sized from the plan's disk rate).
        public var recordingHours: Int

        /// Defaults: image `onair:0.1.0`, port 8750, the standard drain, 12 hours of recordings.
        public init(image: String = "onair:0.1.0", httpPort: Int = 8750, drain: DrainBudget = .standard, recordingHours: Int = 12) {
            self.image = image
            self.httpPort = httpPort
            self.drain = drain
            self.recordingHours = recordingHours
        }
    }

    /// Where the project lives in the image.
    public static let projectPath = "/srv/onair"
    /// The environment variable the pod passes the API token in.
    public static let tokenVariable = "ONAIR_API_TOKEN"
    /// The unprivileged user and group the image defines.
    public static let userID = 10001

    /// The pipeline exported.
    public var pipeline: ExportedPipeline
    /// Settings.
    public var options: Options

    /// Creates the export of `pipeline`.
    public init(_ pipeline: ExportedPipeline, options: Options = Options()) {
        self.pipeline = pipeline
        self.options = options
    }

    /// How long stopping may take: the options' budget with the pipeline's `notify:` targets.
    public var drain: DrainBudget { options.drain.delivering(to: pipeline.notify) }

    /// The operator-made Secret holding the stream keys and the API token.
    public var secretName: String { pipeline.resourceName + "-keys" }

    /// Everything to check before applying the manifests, as YAML comment lines.
    public var notes: [String] {
        let plan = pipeline.plan
        var lines = [
            "onair pipeline '\(plan.pipeline)' on Kubernetes (onair export kubernetes \(plan.pipeline)).",
            "Before applying, create the Secret (values never appear in these manifests):",
            "  kubectl create secret generic \(secretName) \\",
        ]
        let keys = secretEntries.map { "--from-literal=\($0.key)=…" } + ["--from-literal=\(Self.tokenVariable)=…"]
        for (index, key) in keys.enumerated() { lines.append("    \(key)\(index == keys.count - 1 ? "" : " \\")") }
        lines.append("The image must hold the project's assets under \(Self.projectPath) (see Dockerfile):")
        for path in pipeline.assetPaths { lines.append("  \(path)") }
        lines.append("Cost estimate: \(String(format: "%.2f", plan.cost.cpuCores)) CPU cores, \(plan.cost.mebibytes) MiB (requests; limits \(limits.cpu) CPU, \(limits.memory)).")
        lines.append("Stopping: \(drain.drainSeconds) s drain (\(drain.parts)), \(drain.gracePeriodSeconds) s grace period.")
        for port in pipeline.listenPorts where port.isLoopback {
            lines.append("WARNING: source '\(port.source)' listens on \(port.host), which the Service can't reach; listen on 0.0.0.0.")
        }
        return lines
    }

    /// The manifests as one YAML stream, notes first as comments.
    public func render() -> String {
        notes.map { "# " + $0 }.joined(separator: "\n") + "\n" + YAMLValue.stream(documents)
    }

    /// The manifests, in the order to apply them.
    public var documents: [YAMLValue] {
        var documents = [configMap]
        documents.append(recordingClaim)
        documents.append(deployment)
        documents.append(apiService)
        if !pipeline.listenPorts.isEmpty { documents.append(ingestService) }
        return documents
    }

    // MARK: - Names

    private var name: String { pipeline.resourceName }

    private var labels: YAMLValue {
        ["app.kubernetes.io/name": "onair", "app.kubernetes.io/instance": .string(name), "app.kubernetes.io/component": "pipeline"]
    }

    private var selector: YAMLValue {
        ["app.kubernetes.io/name": "onair", "app.kubernetes.io/instance": .string(name)]
    }

    private func metadata(_ resource: String, annotations: YAMLValue? = nil) -> YAMLValue {
        var entries: [(key: String, value: YAMLValue)] = [("name", .string(resource)), ("labels", labels)]
        if let annotations { entries.append(("annotations", annotations)) }
        return .mapping(entries)
    }

    // MARK: - ConfigMap

    /// ConfigMap keys can't hold `/`: `Pipelines/demo.yaml` is stored as `Pipelines.demo.yaml`.
    static func configKey(_ path: String) -> String {
        path.replacingOccurrences(of: "/", with: ".")
    }

    private var configMap: YAMLValue {
        [
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": metadata(name + "-project"),
            "data": .mapping(pipeline.files.map { (key: Self.configKey($0.path), value: .string($0.text)) }),
        ]
    }

    /// Folders of the project that come from the ConfigMap, with their files.
    private var configFolders: [(folder: String, files: [ProjectFile])] {
        var folders: [(folder: String, files: [ProjectFile])] = []
        for file in pipeline.files {
            let folder = file.path.split(separator: "/").dropLast().joined(separator: "/")
            if let index = folders.firstIndex(where: { $0.folder == folder }) {
                folders[index].files.append(file)
            } else {
                folders.append((folder, [file]))
            }
        }
        return folders
    }

    // MARK: - Recordings and the record of runs

    /// Room for the record of runs (`.onair/runs/`) on the claim: a day of a two-destination
    /// show takes about 40 MB, so the 30 runs kept fit while each lasts under about 20 hours
    /// (a run is capped at 256 MiB by its rotation, `RecordLimits`).
    static let runRecordGibibytes = 1
    /// The claim's folder the runs are kept in.
    static let runRecordSubPath = "onair-runs"

    /// The pod's one claim: its recordings (sized for `recordingHours` at the plan's disk rate)
    /// and the record of its runs, so both outlive the pod.
    private var recordingClaim: YAMLValue {
        let bitsPerSecond = Double(pipeline.plan.diskBitrate)
        let recordings = pipeline.recordingFolders.isEmpty ? 0 : max(1, Int((bitsPerSecond / 8 * 3600 * Double(options.recordingHours) / Double(1 << 30)).rounded(.up)))
        let gibibytes = recordings + Self.runRecordGibibytes
        return [
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": metadata(name + "-recordings"),
            "spec": [
                // One pod at a time (Recreate): ReadWriteOnce is enough.
                "accessModes": ["ReadWriteOnce"],
                "resources": ["requests": ["storage": .string("\(gibibytes)Gi")]],
            ],
        ]
    }

    // MARK: - Deployment

    /// Requests are the estimate; limits leave room for bursts (keyframes, a reconnect's
    /// catch-up) without throttling a live encode, and memory for every queue at its bound.
    var requests: (cpu: String, memory: String) {
        ("\(max(pipeline.plan.cost.millicores, 100))m", "\(max(pipeline.plan.cost.mebibytes, 64))Mi")
    }

    var limits: (cpu: String, memory: String) {
        let cost = pipeline.plan.cost
        return ("\(max(Int((Double(cost.millicores) * 1.5).rounded(.up)), 200))m", "\(max(Int((Double(cost.mebibytes) * 1.5).rounded(.up)), 128))Mi")
    }

    private var secretEntries: [(key: String, reference: KeySource, destinations: [String])] {
        pipeline.keyReferences.map { reference in
            switch reference.key {
            case .environment(let variable): (variable, reference.key, reference.destinations)
            case .file(let path): (Self.secretKey(forFile: path), reference.key, reference.destinations)
            }
        }
    }

    /// The Secret key holding a key file's content: its file name, restricted to what Secret
    /// keys allow.
    static func secretKey(forFile path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return String(name.map { $0.isLetter || $0.isNumber || "-._".contains($0) ? $0 : "_" })
    }

    /// Where a project-relative or absolute path is in the container.
    static func containerPath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        // HOME is /tmp in the pod.
        if path.hasPrefix("~/") { return "/tmp/" + path.dropFirst(2) }
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else if part != "." { parts.append(part) }
        }
        return ([projectPath] + parts.map(String.init)).joined(separator: "/")
    }

    /// One pod at a time (`Recreate`), rolled when the project's files change.
    private var deployment: YAMLValue {
        let digest = pipeline.files.map { $0.path + "\u{0}" + $0.text }.joined(separator: "\u{0}")
        let pod = podVolumes
        return [
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": metadata(name),
            "spec": [
                "replicas": 1,
                "strategy": ["type": "Recreate"],
                "revisionHistoryLimit": 3,
                "selector": ["matchLabels": selector],
                "template": [
                    "metadata": ["labels": labels, "annotations": ["onair/config-digest": .string(StableDigest.hex(digest))]],
                    "spec": [
                        "terminationGracePeriodSeconds": .integer(drain.gracePeriodSeconds),
                        "automountServiceAccountToken": false,
                        "enableServiceLinks": false,
                        "securityContext": [
                            "runAsNonRoot": true, "runAsUser": .integer(Self.userID), "runAsGroup": .integer(Self.userID),
                            "fsGroup": .integer(Self.userID), "seccompProfile": ["type": "RuntimeDefault"],
                        ],
                        "tolerations": tolerations,
                        "containers": [container(mounts: pod.mounts)],
                        "volumes": .list(pod.volumes),
                    ],
                ],
            ],
        ]
    }

    /// The pod's tolerations: no `tolerationSeconds`, so the pod is never evicted from a node
    /// that merely stopped answering (see the type's documentation).
    private var tolerations: YAMLValue {
        .list(["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"].map {
            ["key": .string($0), "operator": "Exists", "effect": "NoExecute"]
        })
    }

    /// The one container: `onair run` of the pipeline, its API on every address, probed.
    private func container(mounts: [YAMLValue]) -> YAMLValue {
        func probe(_ path: String, period: Int, failures: Int) -> YAMLValue {
            ["httpGet": ["path": .string(path), "port": "http"], "periodSeconds": .integer(period), "timeoutSeconds": 2, "failureThreshold": .integer(failures)]
        }
        return [
            "name": "onair",
            "image": .string(options.image),
            "args": .list(["run", .string(pipeline.plan.pipeline), "--project", .string(Self.projectPath),
                           "--http", .string("0.0.0.0:\(options.httpPort)"), "--log-format", "json"]),
            "env": .list(environment),
            "ports": .list(containerPorts),
            // Starting opens inputs and connects destinations: up to 60 s before liveness counts.
            "startupProbe": probe("/healthz", period: 2, failures: 30),
            "livenessProbe": probe("/healthz", period: 10, failures: 3),
            // Not ready while a required destination is not live (and at once when draining).
            "readinessProbe": probe("/readyz", period: 5, failures: 1),
            "resources": [
                "requests": ["cpu": .string(requests.cpu), "memory": .string(requests.memory)],
                "limits": ["cpu": .string(limits.cpu), "memory": .string(limits.memory)],
            ],
            "securityContext": [
                "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "privileged": false,
                "capabilities": ["drop": ["ALL"]],
            ],
            "volumeMounts": .list(mounts),
        ]
    }

    /// The HTTP API's port, then each source's listening port.
    private var containerPorts: [YAMLValue] {
        var ports: [YAMLValue] = [["name": "http", "containerPort": .integer(options.httpPort), "protocol": "TCP"]]
        for port in pipeline.listenPorts {
            ports.append(["name": .string(Self.portName(port)), "containerPort": .integer(port.port), "protocol": .string(port.transport)])
        }
        return ports
    }

    /// The stream keys read from variables and the API token, from the Secret; and HOME.
    private var environment: [YAMLValue] {
        var environment: [YAMLValue] = []
        for entry in secretEntries {
            if case .environment(let variable) = entry.reference {
                environment.append(["name": .string(variable), "valueFrom": ["secretKeyRef": ["name": .string(secretName), "key": .string(entry.key)]]])
            }
        }
        environment.append(["name": .string(Self.tokenVariable), "valueFrom": ["secretKeyRef": ["name": .string(secretName), "key": .string(Self.tokenVariable)]]])
        // Font caches and libraries that write under $HOME find a writable /tmp.
        environment.append(["name": "HOME", "value": "/tmp"])
        return environment
    }

    // MARK: - Volumes

    /// The pod's volumes and the container's mounts, in the order they are listed.
    private struct PodVolumes {
        var volumes: [YAMLValue] = []
        var mounts: [YAMLValue] = []

        mutating func add(_ volume: YAMLValue, mount: YAMLValue) {
            volumes.append(volume)
            mounts.append(mount)
        }
    }

    /// The project's folders (with the key files inside them), the other key files' folders,
    /// then the writable ones.
    private var podVolumes: PodVolumes {
        var pod = PodVolumes()
        let keyFolders = self.keyFolders
        addProjectFolders(to: &pod, keyFolders: keyFolders)
        let configPaths = configFolders.map { Self.containerPath($0.folder) }
        for (index, keys) in keyFolders.enumerated()
        where !configPaths.contains(where: { keys.folder == $0 || keys.folder.hasPrefix($0 + "/") }) {
            pod.add(["name": .string("stream-keys-\(index)"), "projected": ["defaultMode": 0o440, "sources": [secretSource(keys.items)]]],
                    mount: ["name": .string("stream-keys-\(index)"), "mountPath": .string(keys.folder), "readOnly": true])
        }
        addWritableFolders(to: &pod)
        return pod
    }

    /// A folder of key files in the container, with the Secret's items (key, file name) for it.
    private typealias KeyFolder = (folder: String, items: [YAMLValue])

    /// Key files appear where the pipeline reads them, from the Secret: in the folder the
    /// ConfigMap fills when they are there (one projected volume), else in a folder of their
    /// own.
    private var keyFolders: [KeyFolder] {
        var keyFolders: [KeyFolder] = []
        for entry in secretEntries {
            guard case .file(let path) = entry.reference else { continue }
            let file = Self.containerPath(path)
            let folder = String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)])
            if let index = keyFolders.firstIndex(where: { $0.folder == folder }) {
                keyFolders[index].items.append(["key": .string(entry.key), "path": .string(String(file.dropFirst(folder.count + 1)))])
            } else {
                keyFolders.append((folder, [["key": .string(entry.key), "path": .string(String(file.dropFirst(folder.count + 1)))]]))
            }
        }
        return keyFolders
    }

    /// A projected volume's source of Secret `items`.
    private func secretSource(_ items: [YAMLValue]) -> YAMLValue {
        // Group-readable: the pod's fsGroup owns the files, root the rest.
        ["secret": ["name": .string(secretName), "items": .list(items)]]
    }

    /// One read-only projected volume per project folder: its files from the ConfigMap, and the
    /// key files that belong inside it.
    private func addProjectFolders(to pod: inout PodVolumes, keyFolders: [KeyFolder]) {
        for (index, folder) in configFolders.enumerated() {
            let volume = "config-\(index)"
            let mountPath = Self.containerPath(folder.folder)
            var sources: [YAMLValue] = [["configMap": [
                "name": .string(name + "-project"),
                "items": .list(folder.files.map { ["key": .string(Self.configKey($0.path)), "path": .string(String($0.path.split(separator: "/").last ?? ""))] }),
            ]]]
            for keys in keyFolders where keys.folder == mountPath || keys.folder.hasPrefix(mountPath + "/") {
                let relative = keys.folder.dropFirst(mountPath.count).drop { $0 == "/" }
                sources.append(secretSource(keys.items.map { item in
                    guard case .mapping(let entries) = item, case .string(let path)? = entries.last?.value else { return item }
                    return ["key": entries[0].value, "path": .string(relative.isEmpty ? path : "\(relative)/\(path)")]
                }))
            }
            pod.add(["name": .string(volume), "projected": ["defaultMode": 0o440, "sources": .list(sources)]],
                    mount: ["name": .string(volume), "mountPath": .string(mountPath), "readOnly": true])
        }
    }

    /// The runtime folder (stream key locks, the run's URL file) and /tmp, small and private;
    /// the claim for the record of runs and every recording folder.
    private func addWritableFolders(to pod: inout PodVolumes) {
        pod.add(["name": "runtime", "emptyDir": ["medium": "Memory", "sizeLimit": "1Mi"]],
                mount: ["name": "runtime", "mountPath": .string(Self.projectPath + "/.onair")])
        pod.add(["name": "tmp", "emptyDir": ["sizeLimit": "256Mi"]], mount: ["name": "tmp", "mountPath": "/tmp"])
        pod.add(["name": "recordings", "persistentVolumeClaim": ["claimName": .string(name + "-recordings")]],
                mount: ["name": "recordings", "mountPath": .string(Self.projectPath + "/.onair/runs"),
                        "subPath": .string(Self.runRecordSubPath)])
        for folder in pipeline.recordingFolders {
            let subPath = folder == "." ? "" : folder.split(separator: "/").filter { $0 != ".." && $0 != "." }.joined(separator: "-")
            var mount: [(key: String, value: YAMLValue)] = [("name", "recordings"), ("mountPath", .string(Self.containerPath(folder)))]
            if !subPath.isEmpty { mount.append(("subPath", .string(subPath))) }
            pod.mounts.append(.mapping(mount))
        }
    }

    /// A port name: at most 15 characters, letters, digits and `-`.
    static func portName(_ port: ListenPort) -> String {
        let base = port.source.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let trimmed = String(base).split(separator: "-").joined(separator: "-")
        let name = String(("in-" + trimmed).prefix(15))
        return name.hasSuffix("-") ? String(name.dropLast()) : name
    }

    // MARK: - Services

    private var apiService: YAMLValue {
        [
            "apiVersion": "v1", "kind": "Service",
            "metadata": metadata(name + "-api", annotations: [
                "prometheus.io/scrape": "true", "prometheus.io/port": .string(String(options.httpPort)),
                "prometheus.io/path": "/metrics", "prometheus.io/scheme": "http",
            ]),
            "spec": [
                "type": "ClusterIP",
                "selector": selector,
                "ports": [["name": "http", "port": .integer(options.httpPort), "targetPort": "http", "protocol": "TCP"]],
            ],
        ]
    }

    private var ingestService: YAMLValue {
        [
            "apiVersion": "v1", "kind": "Service",
            "metadata": metadata(name + "-ingest"),
            "spec": [
                // Cameras push from outside the cluster.
                "type": "LoadBalancer",
                // Keeps the camera's address and a single path for SRT's UDP session.
                "externalTrafficPolicy": "Local",
                // Cameras must reach the pod before it is ready: its destinations may wait for them.
                "publishNotReadyAddresses": true,
                "selector": selector,
                "ports": .list(pipeline.listenPorts.map { port in
                    ["name": .string(Self.portName(port)), "port": .integer(port.port), "targetPort": .string(Self.portName(port)), "protocol": .string(port.transport)]
                }),
            ],
        ]
    }
}
