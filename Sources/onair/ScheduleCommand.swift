import ArgumentParser
import Foundation
import OnairConfig
import OnairControl
import OnairEngine
import OnairHTTP

/// `onair schedule NAME [list|add|cancel]`: the schedule of a pipeline `onair run` is running,
/// seen and changed through the run's HTTP API.
///
/// `add` takes the action as the pipeline file writes it (`'{at: +5m, overlay: keyed}'`), not
/// a flag per key: one shape in the file, the API and here, every kind of action with all its
/// keys (`play: {clip:, in:, loop:}`, `for:`, `name:`), and problems located in that text with
/// the validator's suggestions.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "See, add to or cancel the schedule of a running pipeline.",
        discussion: """
            list (the default) prints each action: its id, when it is due (clock time and from the run's start), its state \
            (pending, fired, skipped, cancelled) and for a fired one how late it landed; then the next action and its countdown. \
            add ACTION adds one action written as an item of a pipeline's schedule: (YAML or JSON; - reads it from standard input), \
            such as '{at: +5m, overlay: keyed}', '{after: 10s, show: lower-third, for: 8s}' or '{at: "18:30", end: true}'; \
            after: is from now, at: +D from the run's start. cancel ID cancels a pending action (and what it implies, a for: undone). \
            Exit 0 when done, 1 when the run refused (the reply says why, each problem located in ACTION) or no run of NAME is running, \
            2 on usage errors.
            """)

    enum Verb: String, ExpressibleByArgument, CaseIterable {
        case list, add, cancel
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @OptionGroup var projectOptions: ProjectOptions

    @Argument(help: "The running pipeline's name (as given to onair run, in the same project).")
    var name: String

    @Argument(help: "list, add or cancel.")
    var verb: Verb = .list

    @Argument(help: "add: the action (YAML or JSON, - for standard input); cancel: the action's id.")
    var operand: String?

    @Option(help: "text or json (the API's answer).")
    var format: Format = .text

    func validate() throws {
        switch verb {
        case .list where operand != nil: throw ValidationError("list takes nothing after it")
        case .add where operand == nil: throw ValidationError("add needs the action, such as '{at: +5m, overlay: keyed}'")
        case .cancel where operand.flatMap(Int.init).map { $0 >= 1 } != true: throw ValidationError("cancel needs the action's id (a number, as list shows it)")
        default: break
        }
    }

    func run() async throws {
        let client = try RunningPipeline(name, project: projectOptions).client
        do {
            switch verb {
            case .list: try output(await client.schedule(), text: ScheduleTable.render)
            case .add: try output(await client.addToSchedule(try action()), text: ScheduleTable.render)
            case .cancel: try output(await client.cancelScheduled(Int(operand ?? "") ?? 0), text: ScheduleTable.renderCancelled)
            }
        } catch let failure as APIClient.Failure {
            throw RunningPipeline.fail(failure)
        }
    }

    /// The action to add: the operand, or standard input for `-`.
    private func action() throws -> String {
        guard operand == "-" else { return operand ?? "" }
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Prints `value` as `--format` asks.
    private func output<Value: Encodable>(_ value: Value, text: (Value) -> String) throws {
        guard format == .json else { return print(text(value)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// The schedule as `onair schedule` prints it.
enum ScheduleTable {
    /// One line per action, then the next one and its countdown.
    static func render(_ timeline: ScheduleTimeline) -> String {
        guard !timeline.entries.isEmpty else { return "nothing scheduled" }
        let rows = [["ID", "DUE", "FROM START", "STATE", "ACTION", "LANDED"]] + timeline.entries.map(row)
        var lines = table(rows)
        if let next = timeline.next {
            lines.append("next: #\(next.id) \(next.action) in \(duration(next.countdownMs))")
        }
        return lines.joined(separator: "\n")
    }

    /// What `add` printed: the actions added, and the checks' warnings.
    static func render(_ addition: ScheduleAddition) -> String {
        let added = addition.entries.map { "added #\($0.id) \($0.action), due \(clock($0.due)) (\(offset($0.dueMs)))" }
        return (added + addition.warnings.map { "warning at \($0)" }).joined(separator: "\n")
    }

    /// What `cancel` printed.
    static func renderCancelled(_ entries: [ScheduleTimeline.Entry]) -> String {
        entries.map { "cancelled #\($0.id) \($0.action), due \(clock($0.due)) (\(offset($0.dueMs)))" }.joined(separator: "\n")
    }

    private static func row(_ entry: ScheduleTimeline.Entry) -> [String] {
        let landed = entry.landedMediaMicros.map { "+" + duration(Int(($0 - entry.dueMediaMicros) / 1000)) + " late" } ?? ""
        let action = entry.action + (entry.follows.map { " (of #\($0))" } ?? "") + (entry.reason.map { ": \($0)" } ?? "")
        return [String(entry.id), clock(entry.due), offset(entry.dueMs), entry.state.rawValue, action, landed]
    }

    /// Columns padded to their widest cell.
    private static func table(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
    }

    /// `18:05:00` of an ISO 8601 time (UTC as the API gives it), on this machine's clock.
    static func clock(_ iso: String) -> String {
        guard let date = try? Date(iso, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) else { return iso }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// `+1m5s` (or `-3s`) from the run's start.
    static func offset(_ milliseconds: Int) -> String {
        Units.formatSignedOffset(milliseconds)
    }

    /// `1m5s`, `4.2s`.
    static func duration(_ milliseconds: Int) -> String {
        Units.formatOffset(milliseconds)
    }
}
