import Foundation

/// A filter that `avfilter_graph_parse2` created from a filtergraph description.
///
/// libavfilter numbers the filters of a description in order of appearance, counting every
/// filter of every chain from 0, and names the `index`-th one `Parsed_<filter>_<index>`
/// (unless the description names it with `filter@name`, in which case the instance is called
/// `filter@name`). Its log lines carry that name, which is how an error is traced back to
/// the part of the configuration that produced the filter.
public struct FilterInstance: Sendable, Hashable, CustomStringConvertible {
    /// The filter's name, e.g. `"drawtext"`.
    public var filterName: String
    /// The position of the filter in the description, counted from 0 across all chains.
    public var index: Int
    /// The name of the instance in libav's log lines: `"Parsed_drawtext_5"`, or `"drawtext@clock"`
    /// when the description named it.
    public var instanceName: String

    /// The `index`-th filter of a description, a `filterName`; `instanceName` defaults to
    /// libavfilter's `Parsed_<filterName>_<index>`.
    public init(filterName: String, index: Int, instanceName: String? = nil) {
        self.filterName = filterName
        self.index = index
        self.instanceName = instanceName ?? "Parsed_\(filterName)_\(index)"
    }

    /// Reads an instance name of the form `Parsed_<filter>_<index>`; `nil` for any other name
    /// (`filter@name` instances, the `in_*`/`out_*` sources and sinks, `auto_scale_0` and
    /// other filters libav inserts).
    init?(instanceName: String) {
        let prefix = "Parsed_"
        guard instanceName.hasPrefix(prefix) else { return nil }
        let rest = instanceName.dropFirst(prefix.count)
        guard let separator = rest.lastIndex(of: "_") else { return nil }
        let name = rest[..<separator]
        let digits = rest[rest.index(after: separator)...]
        guard !name.isEmpty, !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit),
              let index = Int(digits) else { return nil }
        self.init(filterName: String(name), index: index)
    }

    /// The ``instanceName``.
    public var description: String {
        instanceName
    }

    /// The first `Parsed_<filter>_<index>` that occurs in `text`, e.g. in
    /// `"Failed to configure output pad on Parsed_scale_0"`.
    static func firstMentioned(in text: String) -> FilterInstance? {
        var rest = Substring(text)
        while let start = rest.range(of: "Parsed_") {
            let word = rest[start.lowerBound...].prefix { $0.isASCIIWordCharacter }
            if let instance = FilterInstance(instanceName: String(word)) { return instance }
            rest = rest[start.upperBound...]
        }
        return nil
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
    var isASCIIWordCharacter: Bool { isASCII && (isLetter || isNumber || self == "_") }
}
