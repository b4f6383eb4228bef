/// A position in a configuration file: what every diagnostic and every located value points at.
public struct SourceLocation: Hashable, Codable, Sendable, Comparable, CustomStringConvertible {
    /// The file as the user named it (relative to the working directory when possible).
    public var file: String
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The start of a file, for problems that concern the file as a whole.
    public static func start(of file: String) -> SourceLocation {
        SourceLocation(file: file, line: 1, column: 1)
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

extension StringProtocol {
    /// The lines of a file as YAML 1.1 (libyaml) counts them: LF, CR LF, a lone CR, and NEL, LS
    /// and PS (U+0085, U+2028, U+2029) each end a line.
    public var sourceLines: [SubSequence] {
        // Splitting by Characters (CR LF is one) costs a grapheme break test per character; a
        // text without CR, NEL, LS or PS (no 0x0D byte, and no 0xC2 or 0xE2 lead byte among
        // which theirs are) breaks only at LF, which is found byte by byte.
        guard !utf8.contains(where: { $0 == 0x0D || $0 == 0xC2 || $0 == 0xE2 }) else { return linesByCharacter }
        var lines: [SubSequence] = []
        var start = startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == 0x0A {
                lines.append(self[start..<index])
                start = utf8.index(after: index)
            }
            utf8.formIndex(after: &index)
        }
        lines.append(self[start..<endIndex])
        return lines
    }

    /// `sourceLines` found Character by Character.
    var linesByCharacter: [SubSequence] {
        split(omittingEmptySubsequences: false) { $0.isYAMLLineBreak }
    }
}

extension Character {
    /// LF, CR LF, CR, NEL, LS or PS: Unicode's newlines but the vertical tab and the form feed,
    /// which YAML reads as ordinary (if forbidden) characters.
    var isYAMLLineBreak: Bool { isNewline && self != "\u{B}" && self != "\u{C}" }
}

/// A value read from configuration together with where it was written.
public struct Located<Value> {
    /// The decoded value.
    public var value: Value
    /// Where the value was written.
    public var location: SourceLocation

    /// Creates a located value.
    public init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }
}

extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
extension Located: Sendable where Value: Sendable {}
