import ArgumentParser
import OnairConfig

/// Why a command failed, and the exit status it ends with: the one way a command of onair
/// fails. `Onair.main` prints it on standard error and exits with its status; a usage error is
/// argument-parser's `ValidationError` (exit status 2).
struct CommandFailure: Error, CustomStringConvertible {
    /// What is printed (nothing when the command printed its own report).
    var description: String
    /// The exit status: 1 configuration errors, 3 the broadcast failed, 4 stopped at once.
    var status: Int32

    /// `error: MESSAGE`, exit status `status` (1: a configuration error).
    init(_ message: String, status: Int32 = 1) {
        description = "error: " + message
        self.status = status
    }

    /// `report` printed as it is (a diagnostics report, already formatted).
    init(report: String, status: Int32 = 1) {
        description = report
        self.status = status
    }

    /// An exit status with nothing more to say (the command printed what it found).
    static func exit(_ status: Int32) -> CommandFailure {
        CommandFailure(report: "", status: status)
    }

    /// Located problems, rendered for people.
    static func diagnostics(_ diagnostics: [Diagnostic], files: [String: String], color: Bool = false) -> CommandFailure {
        CommandFailure(report: DiagnosticReport.render(diagnostics, format: .human, files: files, color: color))
    }
}
