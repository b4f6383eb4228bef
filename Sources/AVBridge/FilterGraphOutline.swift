import CFFmpeg

/// The filters of a filtergraph description in the order libavfilter numbers them, found by
/// walking the text with libav's own tokenizer (`av_get_token`), the way
/// `avfilter_graph_parse2` does, but without creating any filter.
///
/// It names the filter behind a parse error that libav reports without an instance name
/// (`No such filter: 'x'`), since a failed parse frees every filter it had created.
struct FilterGraphOutline {
    /// One filter of the description.
    struct Entry: Hashable {
        /// The position libavfilter gives it (the `N` in `Parsed_<name>_N`).
        var index: Int
        /// The filter name, e.g. `"scale"` (without an `@name` suffix).
        var filterName: String
        /// The instance name libavfilter gives it: `Parsed_<filter>_<index>`, or `filter@name`
        /// when the description names it so.
        var instanceName: String
        /// The text after `=`, unescaped, or `nil` when there was none.
        var arguments: String?
    }

    /// The filters found, in order. Parsing stops quietly at the first thing libav would reject.
    private(set) var entries: [Entry] = []

    init(_ description: String) {
        description.withCString { start in
            var cursor: UnsafePointer<CChar>? = start
            Self.skipWhitespace(&cursor)
            if Self.hasPrefix(cursor, "sws_flags=") {
                // The sws_flags=...; prologue is not a filter.
                while let c = cursor, c.pointee != 0, c.pointee != CChar(UInt8(ascii: ";")) { cursor = c + 1 }
                if let c = cursor, c.pointee != 0 { cursor = c + 1 }
            }
            var index = 0
            while true {
                Self.skipWhitespace(&cursor)
                guard Self.skipLabels(&cursor) else { return }
                guard let name = Self.token(&cursor, terminators: "=,;[") else { return }
                var arguments: String?
                if let c = cursor, c.pointee == CChar(UInt8(ascii: "=")) {
                    cursor = c + 1
                    arguments = Self.token(&cursor, terminators: "[],;")
                }
                let filterName = name.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? name
                entries.append(Entry(
                    index: index, filterName: filterName,
                    instanceName: name.contains("@") ? name : "Parsed_\(filterName)_\(index)",
                    arguments: arguments))
                guard Self.skipLabels(&cursor) else { return }
                Self.skipWhitespace(&cursor)
                guard let c = cursor, c.pointee == CChar(UInt8(ascii: ",")) || c.pointee == CChar(UInt8(ascii: ";")) else {
                    return
                }
                cursor = c + 1
                index += 1
            }
        }
    }

    /// The first filter named `filterName` (and given `arguments`, when not `nil`).
    func first(named filterName: String, arguments: String? = nil) -> Entry? {
        entries.first { $0.filterName == filterName && (arguments == nil || $0.arguments == arguments) }
    }

    /// The filters as ``FilterInstance`` values.
    var instances: [FilterInstance] {
        entries.map { FilterInstance(filterName: $0.filterName, index: $0.index, instanceName: $0.instanceName) }
    }

    private static func skipWhitespace(_ cursor: inout UnsafePointer<CChar>?) {
        while let c = cursor, c.pointee != 0, " \n\t\r".utf8.contains(UInt8(bitPattern: c.pointee)) { cursor = c + 1 }
    }

    private static func hasPrefix(_ cursor: UnsafePointer<CChar>?, _ prefix: String) -> Bool {
        guard let cursor else { return false }
        return prefix.withCString { strncmp(cursor, $0, strlen($0)) == 0 }
    }

    /// Skips `[label]` groups; false when a label is not closed.
    private static func skipLabels(_ cursor: inout UnsafePointer<CChar>?) -> Bool {
        while let c = cursor, c.pointee == CChar(UInt8(ascii: "[")) {
            cursor = c + 1
            _ = token(&cursor, terminators: "]")
            guard let end = cursor, end.pointee == CChar(UInt8(ascii: "]")) else { return false }
            cursor = end + 1
            skipWhitespace(&cursor)
        }
        return true
    }

    private static func token(_ cursor: inout UnsafePointer<CChar>?, terminators: String) -> String? {
        guard cursor != nil else { return nil }
        guard let raw = av_get_token(&cursor, terminators) else { return nil }
        defer { av_free(raw) }
        return String(cString: raw)
    }
}
