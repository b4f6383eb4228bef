import Foundation
import OnairControl

/// The events a `notify:` target asks for: names and patterns in which `*` stands for any
/// characters (`destination.failed`, `input.*`, `*`).
///
/// The frequent events — `stats` (the periodic snapshot) and `libav.log` (libav's warnings) —
/// come often enough to flood a chat channel, so only a pattern that names them exactly
/// selects them; `*` and `libav.*` do not.
public struct NotifyEventFilter: Hashable, Sendable {
    /// The patterns as written.
    public var patterns: [String]

    /// A filter of `patterns`.
    public init(_ patterns: [String]) {
        self.patterns = patterns
    }

    /// Every event name a run publishes (``EventName``).
    public static var eventNames: [String] { EventName.allCases.map(\.rawValue) }

    /// Events selected only when named exactly: the frequent ones (``EventName/Frequency``).
    public static var namedOnly: Set<String> { Set(EventName.allCases.filter { $0.frequency == .frequent }.map(\.rawValue)) }

    /// Whether an event called `name` is selected.
    public func selects(_ name: String) -> Bool {
        patterns.contains { pattern in
            pattern == name || (!Self.namedOnly.contains(name) && Self.glob(pattern, matches: name))
        }
    }

    /// Whether `pattern` (with `*` for any run of characters) matches all of `name`.
    static func glob(_ pattern: String, matches name: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return pattern == name }
        var rest = Substring(name)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(parts.last!)
    }

    /// Decodes `events:` of the target `target`: each pattern must select a real event (an
    /// error with "did you mean" otherwise); nil when none is left.
    static func decode(_ written: Located<[Located<String>]>, target: String, log: DiagnosticLog) -> NotifyEventFilter? {
        var patterns: [String] = []
        for pattern in written.value {
            if eventNames.contains(where: { NotifyEventFilter([pattern.value]).selects($0) }) {
                patterns.append(pattern.value)
                continue
            }
            let families = Set(EventName.allCases.map { $0.family + ".*" })
            log.error("unknown-event", "'\(pattern.value)' in the events of notify target '\(target)' names no event", at: pattern.location,
                      suggestion: Suggestion.phrase(for: pattern.value, in: eventNames + families.sorted()))
        }
        if written.value.isEmpty {
            log.error("no-events", "notify target '\(target)' asks for no event", at: written.location,
                      suggestion: "write events: [destination.failed, input.lost, run.stopped], or ['*'] for all")
        }
        return patterns.isEmpty ? nil : NotifyEventFilter(patterns)
    }
}
