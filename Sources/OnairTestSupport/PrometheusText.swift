import Foundation

/// One sample of a Prometheus text exposition.
public struct Sample: Equatable, Sendable {
    /// The metric's name.
    public var name: String
    /// Its labels.
    public var labels: [String: String]
    /// Its value.
    public var value: Double
}

/// The Prometheus text format (0.0.4), as a scraper reads it.
public enum PrometheusText {
    /// A line that is not Prometheus' text format.
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Parses `text` strictly enough to fail on anything malformed: every line is a comment
    /// (`# HELP`/`# TYPE`), empty, or `name{label="value",…} number`. Returns the samples and
    /// each metric's type.
    public static func parse(_ text: String) throws -> (samples: [Sample], types: [String: String]) {
        var samples: [Sample] = [], types: [String: String] = [:]
        let name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                    throw Malformed(description: String(line))
                }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            guard let match = line.prefixMatch(of: name) else { throw Malformed(description: String(line)) }
            var rest = line[match.range.upperBound...]
            var labels: [String: String] = [:]
            if rest.hasPrefix("{") {
                guard let close = rest.firstIndex(of: "}") else { throw Malformed(description: String(line)) }
                for pair in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") where !pair.isEmpty {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[1].hasPrefix("\""), parts[1].hasSuffix("\"") else {
                        throw Malformed(description: String(line))
                    }
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
                rest = rest[rest.index(after: close)...]
            }
            guard rest.hasPrefix(" "), let value = Double(rest.dropFirst().split(separator: " ")[0]) else {
                throw Malformed(description: String(line))
            }
            samples.append(Sample(name: String(match.output), labels: labels, value: value))
        }
        return (samples, types)
    }
}
