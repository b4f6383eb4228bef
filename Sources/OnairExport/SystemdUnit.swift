import Foundation
import OnairConfig
import OnairPlanner

/// `onair export systemd`: a service unit running one pipeline on a host (`onair-NAME.service`).
///
/// - `Restart=on-failure`, but not after configuration or usage errors (exit codes 1 and 2:
///   restarting can't fix them; a key locked by another run is one too), with a start limit.
/// - Stream keys (and the API token) from a root-owned 0600 `EnvironmentFile`: systemd reads it
///   before dropping privileges, onair reads `env:` keys as it always does, and the values are
///   never on a command line. (systemd credentials would need onair to read
///   `$CREDENTIALS_DIRECTORY`, which pipelines can't name.)
/// - A dedicated user (`onair`), not `DynamicUser`: recordings keep one owner across restarts
///   and key files (`key: {file: …}`) can be given to that user.
/// - Hardening: the whole file system read-only (`ProtectSystem=strict`) except the recording
///   folders and the project's runtime folder, no new privileges, no capabilities, private
///   /tmp and devices (unless a capture device is read), kernel and namespace protections,
///   a system-call filter.
/// - `TimeoutStopSec` longer than the drain (``DrainBudget``); memory limits from the cost
///   estimate; no CPU quota (throttling a live encode drops frames).
public struct SystemdUnit: Sendable {
    /// Settings of an export.
    public struct Options: Sendable {
        /// The onair executable on the host.
        public var executable: String
        /// The project folder on the host.
        public var projectPath: String
        /// `--http HOST:PORT` for the run, nil for onair's default (loopback, a free port).
        public var http: String?
        /// The user and group the service runs as.
        public var user: String
        /// How long stopping may take.
        public var drain: DrainBudget

        /// Defaults: `/usr/local/bin/onair`, project in `/srv/onair`, user `onair`.
        public init(executable: String = "/usr/local/bin/onair", projectPath: String = "/srv/onair", http: String? = nil,
                    user: String = "onair", drain: DrainBudget = .standard) {
            self.executable = executable
            self.projectPath = projectPath
            self.http = http
            self.user = user
            self.drain = drain
        }
    }

    /// The pipeline exported.
    public var pipeline: ExportedPipeline
    /// Settings.
    public var options: Options

    /// Creates the unit of `pipeline`.
    public init(_ pipeline: ExportedPipeline, options: Options = Options()) {
        self.pipeline = pipeline
        self.options = options
    }

    /// `onair-NAME.service`.
    public var fileName: String { pipeline.resourceName + ".service" }

    /// The root-owned 0600 file holding the keys.
    public var environmentFile: String { "/etc/onair/\(pipeline.plan.pipeline).env" }

    /// The command line the unit starts.
    public var commandLine: [String] {
        var arguments = [options.executable, "run", pipeline.plan.pipeline, "--project", options.projectPath, "--log-format", "json"]
        if let http = options.http { arguments += ["--http", http] }
        return arguments
    }

    /// Writable folders: the recordings' and the project's runtime folder.
    public var writablePaths: [String] {
        (pipeline.recordingFolders.map(hostPath) + [hostPath(".onair")]).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    private func hostPath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var parts = options.projectPath.split(separator: "/").map(String.init)
        for part in path.split(separator: "/") {
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else if part != "." { parts.append(String(part)) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The unit file's text.
    public func render() -> String {
        let plan = pipeline.plan
        let drain = options.drain.delivering(to: pipeline.notify)
        let lines = installNotes(drain: drain).map { "# " + $0 } + [
            "",
            "[Unit]",
            "Description=onair pipeline \(plan.pipeline)",
            "Wants=network-online.target",
            "After=network-online.target",
            "StartLimitIntervalSec=10min",
            "StartLimitBurst=20",
            "",
            "[Service]",
        ] + serviceSettings(drain: drain) + sandbox + [
            "",
            "[Install]",
            "WantedBy=multi-user.target",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The stream keys read from variables, each with the destinations that use it.
    private var environmentKeys: [String] {
        pipeline.keyReferences.compactMap { reference -> String? in
            if case .environment(let name) = reference.key { return "\(name)=…   (\(reference.destinations.joined(separator: ", ")))" }
            return nil
        }
    }

    /// Whether the API token is needed: an address that does not parse is taken as reachable
    /// from elsewhere.
    private var needsToken: Bool {
        options.http.map { ListenAddress($0)?.isLoopback != true } ?? false
    }

    /// Whether the unit reads an `EnvironmentFile` (keys, or the token).
    private var hasEnvironmentFile: Bool { !environmentKeys.isEmpty || needsToken }

    /// The comment at the top: how to install the unit, what the environment file holds, the
    /// key files, the cost and the stop.
    private func installNotes(drain: DrainBudget) -> [String] {
        let plan = pipeline.plan
        let fileKeys = pipeline.keyReferences.compactMap { reference -> String? in
            if case .file(let path) = reference.key { return path }
            return nil
        }
        var header = [
            "\(fileName): onair pipeline '\(plan.pipeline)' (onair export systemd \(plan.pipeline)).",
            "Install:",
            "  useradd --system --home-dir \(options.projectPath) --shell /usr/sbin/nologin \(options.user)",
            "  install -d -o \(options.user) -g \(options.user) -m 0750 \(writablePaths.joined(separator: " "))",
        ]
        if hasEnvironmentFile {
            header.append("  install -m 0600 -o root -g root /dev/null \(environmentFile)   # then write the keys into it")
        }
        header.append("  cp \(fileName) /etc/systemd/system/ && systemctl daemon-reload && systemctl enable --now \(fileName)")
        if hasEnvironmentFile {
            header.append("\(environmentFile) holds, one VARIABLE=value a line:")
            header += environmentKeys.map { "  " + $0 }
            if needsToken { header.append("  \(KubernetesManifests.tokenVariable)=…   (the HTTP API listens beyond loopback)") }
        }
        for path in fileKeys {
            header.append("Key file \(hostPath(path)): readable by \(options.user) only (chmod 0400)\(path.hasPrefix("~") ? "; outside /home, which the unit hides" : "").")
        }
        header.append("Cost estimate: \(String(format: "%.2f", plan.cost.cpuCores)) CPU cores, \(plan.cost.mebibytes) MiB.")
        header.append("Stopping: \(drain.drainSeconds) s drain (\(drain.parts)), killed after \(drain.gracePeriodSeconds) s.")
        return header
    }

    /// `[Service]`: who runs what, restarts, the stop and memory limits.
    private func serviceSettings(drain: DrainBudget) -> [String] {
        let memoryHigh = max(pipeline.plan.cost.mebibytes, 64)
        var settings = [
            "Type=exec",
            "User=\(options.user)",
            "Group=\(options.user)",
            "WorkingDirectory=\(options.projectPath)",
        ]
        if hasEnvironmentFile { settings.append("EnvironmentFile=\(environmentFile)") }
        return settings + [
            "ExecStart=\(commandLine.map(Self.quote).joined(separator: " "))",
            "Restart=on-failure",
            "RestartSec=5s",
            "# 1: configuration errors (a missing key, a key another run publishes to), 2: usage errors",
            "RestartPreventExitStatus=1 2",
            "KillSignal=SIGTERM",
            "TimeoutStopSec=\(drain.gracePeriodSeconds)s",
            "UMask=0027",
            "MemoryHigh=\(Int((Double(memoryHigh) * 1.5).rounded(.up)))M",
            "MemoryMax=\(memoryHigh * 2)M",
        ]
    }

    /// `[Service]`'s hardening: a read-only system but the writable paths, capture devices
    /// only when read, the low-port capability only when a port below 1024 is bound.
    private var sandbox: [String] {
        let devices = pipeline.plan.inputs.compactMap { input -> String? in
            if case .device(let path, _) = input.kind { return path }
            return nil
        }
        let bindsLowPort = pipeline.listenPorts.contains { $0.port < 1024 } || ((options.http.flatMap(ListenAddress.init)?.port).map { $0 < 1024 } ?? false)
        return [
            "NoNewPrivileges=yes",
            "ProtectSystem=strict",
            "ReadWritePaths=\(writablePaths.joined(separator: " "))",
            "ProtectHome=yes",
            "PrivateTmp=yes",
            devices.isEmpty ? "PrivateDevices=yes" : "DeviceAllow=\(devices.map { "\($0) rw" }.joined(separator: " "))",
            "ProtectKernelTunables=yes",
            "ProtectKernelModules=yes",
            "ProtectKernelLogs=yes",
            "ProtectControlGroups=yes",
            "ProtectClock=yes",
            "ProtectHostname=yes",
            "ProtectProc=invisible",
            "RestrictNamespaces=yes",
            "RestrictRealtime=yes",
            "RestrictSUIDSGID=yes",
            "LockPersonality=yes",
            "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
            "SystemCallArchitectures=native",
            "SystemCallFilter=@system-service",
            "CapabilityBoundingSet=\(bindsLowPort ? "CAP_NET_BIND_SERVICE" : "")",
            "AmbientCapabilities=\(bindsLowPort ? "CAP_NET_BIND_SERVICE" : "")",
        ]
    }

    /// A command-line word for `ExecStart=`: quoted when it holds spaces or quotes; `%` and
    /// `$` doubled so systemd doesn't expand them.
    static func quote(_ word: String) -> String {
        let escaped = word.replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        guard escaped.contains(where: { " \t\"'\\".contains($0) }) else { return escaped }
        return "\"" + escaped.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
