import Foundation
import OnairControl

/// Renders diagnostics for people (with the source line and a caret), for machines (JSON) and
/// for GitHub Actions (workflow annotations).
public enum DiagnosticReport {
    /// Output formats.
    public enum Format: String, CaseIterable, Sendable {
        case human, json, github
    }

    /// Renders `diagnostics` (already in report order).
    ///
    /// - Parameters:
    ///   - files: the text of each file by display path, to quote the offending line.
    ///   - color: ANSI colours (human format only).
    public static func render(_ diagnostics: [Diagnostic], format: Format, files: [String: String], color: Bool = false,
                              summary: String? = nil) -> String {
        switch format {
        case .human: human(diagnostics, files: files, color: color, summary: summary)
        case .json: json(diagnostics)
        case .github: github(diagnostics)
        }
    }

    static func human(_ diagnostics: [Diagnostic], files: [String: String], color: Bool, summary: String?) -> String {
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var out: [String] = []
        var lineCache: [String: [Substring]] = [:]
        // A line that may hold a secret is never quoted, whichever diagnostic points at it.
        let secretLines = Set(diagnostics.filter(\.hidesSource).map { "\($0.location.file):\($0.location.line)" })
        for diagnostic in diagnostics {
            let severity = diagnostic.severity == .error ? paint("error", "1;31") : paint("warning", "1;33")
            out.append(paint("\(diagnostic.location):", "1") + " \(severity): " + paint(diagnostic.message, "1") + paint(" [\(diagnostic.code)]", "2"))
            if lineCache[diagnostic.location.file] == nil, let text = files[diagnostic.location.file] {
                lineCache[diagnostic.location.file] = text.sourceLines
            }
            let lines = lineCache[diagnostic.location.file] ?? []
            let number = diagnostic.location.line
            if number >= 1, number <= lines.count {
                let gutter = String(repeating: " ", count: String(number).count)
                if secretLines.contains("\(diagnostic.location.file):\(number)") {
                    out.append(" \(gutter) | " + paint("(line not shown: it may contain a secret)", "2"))
                } else {
                    let line = lines[number - 1].replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\r", with: "")
                    let shown = line.count > 200 ? String(line.prefix(200)) + "…" : line
                    out.append(" \(number) | \(shown)")
                    let caretColumn = min(max(diagnostic.location.column - 1, 0), shown.count)
                    let tokenLength = max(1, shown.dropFirst(caretColumn).prefix { !$0.isWhitespace && $0 != ":" && $0 != "," && $0 != "}" }.count)
                    out.append(" \(gutter) | " + String(repeating: " ", count: caretColumn) + paint("^" + String(repeating: "~", count: tokenLength - 1), "1;32"))
                }
            }
            if let suggestion = diagnostic.suggestion {
                out.append("   = " + paint("help:", "1;36") + " \(suggestion)")
            }
            out.append("")
        }
        let errors = diagnostics.count { $0.severity == .error }
        let warnings = diagnostics.count - errors
        out.append(summary ?? (errors == 0 && warnings == 0 ? "no problems found"
            : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"))
        return out.joined(separator: "\n")
    }

    /// Codable shape of the JSON report.
    struct JSONReport: Encodable {
        var valid: Bool
        var errors: Int
        var warnings: Int
        var diagnostics: [DiagnosticEntry]
    }

    static func json(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.count { $0.severity == .error }
        let report = JSONReport(
            valid: errors == 0, errors: errors, warnings: diagnostics.count - errors,
            diagnostics: diagnostics.map { DiagnosticEntry($0) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(report), as: UTF8.self)
    }

    static func github(_ diagnostics: [Diagnostic]) -> String {
        func escapeData(_ text: String) -> String {
            text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
        }
        func escapeProperty(_ text: String) -> String {
            escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
        }
        return diagnostics.map { diagnostic in
            let message = diagnostic.message + (diagnostic.suggestion.map { " — \($0)" } ?? "")
            return "::\(diagnostic.severity.rawValue) file=\(escapeProperty(diagnostic.location.file)),line=\(diagnostic.location.line),col=\(diagnostic.location.column),title=\(escapeProperty("onair \(diagnostic.code)"))::\(escapeData(message))"
        }.joined(separator: "\n")
    }
}

extension DiagnosticEntry {
    /// `diagnostic`, with its file unless `withFile` is false.
    public init(_ diagnostic: Diagnostic, withFile: Bool = true) {
        self.init(severity: diagnostic.severity.rawValue, code: diagnostic.code, message: diagnostic.message,
                  file: withFile ? diagnostic.location.file : nil, line: diagnostic.location.line, column: diagnostic.location.column,
                  suggestion: diagnostic.suggestion)
    }
}
