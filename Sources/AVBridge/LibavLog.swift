import CFFmpeg
import CFFmpegLog
import Foundation
import Synchronization

/// How severe a libav log line is, from the chattiest (``trace``) to the gravest (``panic``).
///
/// Ordered by severity, so `line.level >= .warning` selects warnings, errors, fatal errors and panics.
public enum LibavLogLevel: Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Extremely verbose debugging (`AV_LOG_TRACE`).
    case trace
    /// Debugging information (`AV_LOG_DEBUG`).
    case debug
    /// Detailed information (`AV_LOG_VERBOSE`).
    case verbose
    /// Standard information (`AV_LOG_INFO`).
    case info
    /// Something looks wrong and may lead to problems (`AV_LOG_WARNING`).
    case warning
    /// An error the library may recover from (`AV_LOG_ERROR`).
    case error
    /// An error after which the operation cannot continue (`AV_LOG_FATAL`).
    case fatal
    /// The library is in an inconsistent state (`AV_LOG_PANIC`).
    case panic

    /// Maps libav's numeric level (lower is more severe) to the nearest named level.
    init(libavLevel raw: Int32) {
        switch raw {
        case ...cffmpeg_log_panic(): self = .panic
        case ...cffmpeg_log_fatal(): self = .fatal
        case ...cffmpeg_log_error(): self = .error
        case ...cffmpeg_log_warning(): self = .warning
        case ...cffmpeg_log_info(): self = .info
        case ...cffmpeg_log_verbose(): self = .verbose
        case ...cffmpeg_log_debug(): self = .debug
        default: self = .trace
        }
    }

    /// The level's name as ffmpeg's `-loglevel` spells it (`"warning"`, `"error"`, ...).
    public var description: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .verbose: "verbose"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        case .fatal: "fatal"
        case .panic: "panic"
        }
    }
}

/// One complete line that libav logged.
public struct LibavLogLine: Sendable, Hashable, CustomStringConvertible {
    /// How severe the line is.
    public var level: LibavLogLevel
    /// The name of the object that logged, when there was one: a filter instance's name
    /// (`"Parsed_chromakey_3"`), `"AVFilterGraph"`, a codec or format name...
    public var context: String?
    /// The name of the object that owns ``context``, when libav declares one: the filter
    /// instance behind an expression evaluator (`context` `"Eval"`, parent `"Parsed_scale_0"`).
    public var parentContext: String?
    /// The text, without ffmpeg's `[name @ 0x...]` prefix and without the trailing newline.
    public var message: String

    /// Creates a line; libav's lines reach you through ``LibavLog``.
    public init(level: LibavLogLevel, context: String? = nil, parentContext: String? = nil, message: String) {
        self.level = level
        self.context = context
        self.parentContext = parentContext
        self.message = message
    }

    /// The line as ffmpeg prints it, e.g. `[Parsed_scale_0] error: Option 'foo' not found`.
    public var description: String {
        let names = [parentContext, context].compactMap { $0 }.map { "[\($0)] " }.joined()
        return "\(names)\(level): \(message)"
    }
}

/// Routes libav's log lines (which libav emits on any thread, through one process-wide
/// callback) to the application.
///
/// Each line goes to exactly one place, the first that applies:
/// 1. the innermost ``capturing(_:)`` running on the thread that logged;
/// 2. the handler installed with ``setHandler(_:)``;
/// 3. standard error, but only for lines of level ``LibavLogLevel/warning`` or worse.
///
/// libav drops lines less severe than its log level (``LibavLogLevel/info``) before formatting them.
public enum LibavLog {
    /// Receives lines that no capture claimed. Called on the thread that logged, possibly a
    /// libav worker thread, never while a lock of this type is held.
    public typealias Handler = @Sendable (LibavLogLine) -> Void

    private struct State {
        var handler: Handler?
        /// Open captures per thread, innermost last.
        var captures: [UInt64: [[LibavLogLine]]] = [:]
    }

    private static let state = Mutex(State())

    /// Installs `handler` for every line no capture claims, replacing the previous one;
    /// `nil` restores the default (warnings and errors to standard error).
    public static func setHandler(_ handler: Handler?) {
        LibAV.initialize()
        state.withLock { $0.handler = handler }
    }

    /// Runs `body` and collects every libav line logged on the calling thread meanwhile.
    ///
    /// The collected lines go neither to the handler nor to standard error. Lines that libav
    /// worker threads log during `body` are not collected (they follow the usual routing), so
    /// concurrent captures on different threads never see each other's lines. Captures nest:
    /// a line goes to the innermost one.
    ///
    /// - Returns: what `body` returned and the lines, in the order they were logged.
    public static func capturing<T>(_ body: () -> T) -> (result: T, lines: [LibavLogLine]) {
        LibAV.initialize()
        let thread = cffmpeg_log_thread_token()
        state.withLock { $0.captures[thread, default: []].append([]) }
        let result = body()
        let lines = state.withLock { state -> [LibavLogLine] in
            let lines = state.captures[thread]?.popLast() ?? []
            if state.captures[thread]?.isEmpty == true { state.captures[thread] = nil }
            return lines
        }
        return (result, lines)
    }

    /// ``capturing(_:)`` for a body that can fail: the lines logged before the failure are
    /// returned with it (they usually say why).
    public static func capturingResult<T, E: Error>(_ body: () throws(E) -> T) -> (result: Result<T, E>, lines: [LibavLogLine]) {
        capturing { () -> Result<T, E> in
            do throws(E) { return .success(try body()) } catch { return .failure(error) }
        }
    }

    /// Points libav's log callback at ``deliver(_:)``. Done once, by ``LibAV/initialize()``.
    static func installCapture() {
        cffmpeg_log_install { level, context, parent, message in
            LibavLog.deliver(LibavLogLine(
                level: LibavLogLevel(libavLevel: level),
                context: context.map { String(cString: $0) },
                parentContext: parent.map { String(cString: $0) },
                message: message.map { String(cString: $0) } ?? ""
            ))
        }
    }

    /// Routes one line as described on ``LibavLog``.
    static func deliver(_ line: LibavLogLine) {
        let thread = cffmpeg_log_thread_token()
        let handler: Handler? = state.withLock { state in
            if let depth = state.captures[thread]?.count, depth > 0 {
                state.captures[thread]![depth - 1].append(line)
                return nil
            }
            return state.handler ?? { line in
                guard line.level >= .warning else { return }
                FileHandle.standardError.write(Data("libav \(line)\n".utf8))
            }
        }
        handler?(line)
    }
}
