import Foundation
import OnairProcess
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real browser for tests: Debian's headless Chromium, driven through the DevTools protocol
/// over `--remote-debugging-pipe` (JSON messages separated by NUL bytes on file descriptors 3
/// and 4), so a test can load a page, wait until its script has rendered what it should, read
/// the DOM and take a screenshot. Started and stopped by its PID; ``close()`` it in a `defer`.
public final class HeadlessBrowser: Sendable {
    /// Why the browser could not do what was asked.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where Debian installs it.
    public static let executable = "/usr/bin/chromium"

    /// The browser's process id.
    public var pid: pid_t { child.pid }
    private let child: ChildProcess
    private let commands: Int32
    private let replies: Int32
    private let profile: URL
    /// The DevTools conversation: held for a whole command and its reply, so that commands
    /// from several threads take turns.
    private let conversation = Mutex(Conversation())

    private struct Conversation {
        var nextID = 0
        /// Bytes read past the last whole message.
        var pending: [UInt8] = []
        /// The page's session, once attached.
        var session: String?
        var closed = false
        /// What the page's console reported wrong, once ``watchConsole()`` asked.
        var consoleProblems: [String] = []
    }

    /// Starts Chromium with an empty profile and a `width`×`height` window.
    public init(width: Int = 1440, height: Int = 1000) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw Failure(description: "\(Self.executable) is missing (scripts/ensure-deps installs Debian's chromium)")
        }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("onair-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "pipe: errno \(errno)")
        }
        // The browser gets the ends it uses as its descriptors 3 and 4 (ChildProcess); no other
        // child gets any of them.
        for descriptor in toBrowser + fromBrowser { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe",
            "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "about:blank",
        ]
        defer {
            Glibc.close(toBrowser[0])
            Glibc.close(fromBrowser[1])
        }
        do {
            // Its stdout and stderr (Chromium talks a lot there) go to /dev/null: nothing a test reads.
            child = try ChildProcess(executable: Self.executable, arguments: arguments, more: [toBrowser[0], fromBrowser[1]])
        } catch {
            Glibc.close(toBrowser[1])
            Glibc.close(fromBrowser[0])
            throw Failure(description: "\(error)")
        }
        commands = toBrowser[1]
        replies = fromBrowser[0]
    }

    deinit {
        close()
    }

    /// Sends a DevTools command and returns its `result`; throws the protocol's error, or when
    /// no reply comes within `timeout`.
    @discardableResult
    public func send(_ method: String, _ params: [String: Any] = [:], inPage: Bool = true, timeout: Duration = .seconds(60)) throws
        -> [String: Any]
    {
        // As JSON: what crosses into the conversation's lock is a value no one else holds.
        let params = try JSONSerialization.data(withJSONObject: params)
        return try conversation.withLock { conversation in
            try exchange(&conversation, method, params, inPage: inPage, timeout: timeout)
        }
    }

    private func exchange(_ conversation: inout Conversation, _ method: String, _ params: Data, inPage: Bool,
                          timeout: Duration) throws -> [String: Any] {
        conversation.nextID += 1
        let id = conversation.nextID
        var message: [String: Any] = ["id": id, "method": method, "params": try JSONSerialization.jsonObject(with: params)]
        if inPage, let session = conversation.session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "the browser's pipe closed (\(method))") }
            sent += written
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let reply = try nextMessage(&conversation.pending, until: deadline, waitingFor: method)
            guard reply["id"] as? Int == id else {
                // An event, or a late reply; what the console and the runtime say went wrong is kept.
                if reply["id"] == nil, let problem = Self.consoleProblem(in: reply) { conversation.consoleProblems.append(problem) }
                continue
            }
            if let error = reply["error"] as? [String: Any] {
                throw Failure(description: "\(method): \(error["message"] as? String ?? "\(error)")")
            }
            return reply["result"] as? [String: Any] ?? [:]
        }
    }

    /// Starts collecting the page's console messages and uncaught exceptions (after `open`).
    public func watchConsole() throws {
        try send("Log.enable")
        try send("Runtime.enable")
    }

    /// What the page's console said was wrong since ``watchConsole()``: each error or warning,
    /// as text. Reading it first lets queued events arrive.
    public func consoleProblems() throws -> [String] {
        _ = try evaluate("1")
        return conversation.withLock { $0.consoleProblems }
    }

    /// The problem a console or runtime event reports: an error or warning logged, an exception
    /// thrown, a resource refused; nil for any other event.
    private static func consoleProblem(in event: [String: Any]) -> String? {
        let params = event["params"] as? [String: Any] ?? [:]
        switch event["method"] as? String {
        case "Log.entryAdded":
            let entry = params["entry"] as? [String: Any] ?? [:]
            guard ["error", "warning"].contains(entry["level"] as? String ?? "") else { return nil }
            return "\(entry["level"] ?? ""): \(entry["text"] ?? "") \(entry["url"] ?? "")"
        case "Runtime.exceptionThrown":
            return "exception: \((params["exceptionDetails"] as? [String: Any])?["text"] ?? params)"
        case "Runtime.consoleAPICalled":
            guard ["error", "warning", "assert"].contains(params["type"] as? String ?? "") else { return nil }
            return "console.\(params["type"] ?? ""): \(params["args"] ?? "")"
        default:
            return nil
        }
    }

    /// The next whole message from the browser.
    private func nextMessage(_ pending: inout [UInt8], until deadline: ContinuousClock.Instant, waitingFor method: String) throws
        -> [String: Any]
    {
        while true {
            if let end = pending.firstIndex(of: 0) {
                let data = Data(pending[..<end])
                pending.removeSubrange(...end)
                if let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] { return object }
                continue
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw Failure(description: "no reply to \(method) in time") }
            var descriptor = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left.components.seconds * 1000 + 1, 1000)))
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(replies, &buffer, buffer.count)
            guard count > 0 else { throw Failure(description: "the browser closed its pipe (waiting for \(method))") }
            pending += buffer[..<count]
        }
    }

    /// Opens `url` in the browser's page (attaching to it the first time), `width`×`height`.
    public func open(_ url: String, width: Int = 1440, height: Int = 1000) throws {
        if conversation.withLock({ $0.session }) == nil {
            let targets = try send("Target.getTargets", inPage: false)["targetInfos"] as? [[String: Any]] ?? []
            guard let page = targets.first(where: { $0["type"] as? String == "page" })?["targetId"] as? String else {
                throw Failure(description: "the browser has no page")
            }
            let session = try send("Target.attachToTarget", ["targetId": page, "flatten": true], inPage: false)["sessionId"] as? String
            conversation.withLock { $0.session = session }
            try send("Page.enable")
            try send("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
        }
        try send("Page.navigate", ["url": url])
    }

    /// Evaluates a JavaScript expression in the page and returns its value (JSON-like).
    public func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] as? [String: Any] {
            throw Failure(description: "\(expression): \((exception["exception"] as? [String: Any])?["description"] ?? exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Evaluates `expression` every 200 ms until it is `true`; false after `timeout`. An
    /// expression that throws (the page is still loading) counts as false.
    public func waitUntil(_ expression: String, timeout: Duration) throws -> Bool {
        try eventuallyBlocking(timeout: timeout, every: .milliseconds(200)) {
            do {
                return try evaluate(expression) as? Bool == true
            } catch let failure as Failure where failure.description.hasPrefix(expression) {
                return false  // A script error while the page loads: try again.
            }
        }
    }

    /// The rendered DOM, as HTML.
    public func dom() throws -> String {
        try evaluate("document.documentElement.outerHTML") as? String ?? ""
    }

    /// A PNG of the whole page (beyond the window when it is taller), written to `file`.
    public func screenshot(to file: URL) throws {
        let height = try evaluate("Math.ceil(document.documentElement.scrollHeight)") as? Int ?? 1000
        let width = try evaluate("Math.ceil(document.documentElement.scrollWidth)") as? Int ?? 1440
        let result = try send(
            "Page.captureScreenshot",
            [
                "format": "png", "captureBeyondViewport": true,
                "clip": ["x": 0, "y": 0, "width": width, "height": height, "scale": 1],
            ])
        guard let base64 = result["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try png.write(to: file)
    }

    /// Closes the browser (politely, then by PID with every process it started) and removes
    /// its profile. Safe to call twice.
    public func close() {
        let first = conversation.withLock { conversation in
            defer { conversation.closed = true }
            return !conversation.closed
        }
        guard first else { return }
        let family = [pid] + Self.descendants(of: pid)
        _ = try? send("Browser.close", inPage: false, timeout: .seconds(3))
        Glibc.close(commands)
        Glibc.close(replies)
        child.wait(timeout: .seconds(5))
        for process in family where ProcessIdentity.commandLine(of: process)?.contains("chromium") == true { kill(process, SIGKILL) }
        child.wait(timeout: .seconds(1))
        try? FileManager.default.removeItem(at: profile)
    }

    /// Every process below `pid` (Chromium's zygote, renderers, GPU and utility processes).
    static func descendants(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [pid_t: pid_t] = [:]
        for entry in entries {
            guard let process = pid_t(entry), let fields = ProcessIdentity.statFields(of: process), fields.count > 1,
                let parent = pid_t(fields[1])
            else { continue }
            parents[process] = parent
        }
        var found: [pid_t] = []
        var frontier = [pid]
        while let next = frontier.popLast() {
            let children = parents.filter { $0.value == next }.map(\.key)
            found += children
            frontier += children
        }
        return found
    }
}

extension HeadlessBrowser {
    /// A browser started and showing `url`, from async code: starting it and loading the page
    /// wait on threads of their own (``OwnThread``). Close it when done.
    public static func showing(_ url: String) async throws -> HeadlessBrowser {
        let browser = try await OwnThread.run { try HeadlessBrowser() }
        do {
            try await OwnThread.run { try browser.open(url) }
        } catch {
            browser.close()
            throw error
        }
        return browser
    }

    /// ``waitUntil(_:timeout:)`` from async code, polling on a thread of its own.
    public func waitUntil(_ expression: String, timeout: Duration) async throws -> Bool {
        try await OwnThread.run { try self.waitUntil(expression, timeout: timeout) }
    }
}
