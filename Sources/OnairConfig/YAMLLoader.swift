import Foundation
import Yams

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a YAML file into a `ConfigNode`, turning every way a file can be broken — oversized,
/// binary, invalid UTF-8, a syntax error, duplicate keys, an alias bomb, absurd nesting — into a
/// located diagnostic in bounded time and memory.
public struct YAMLLoader: Sendable {
    /// Limits that keep hostile input cheap to reject.
    public struct Limits: Sendable {
        /// Largest file accepted, in bytes.
        public var maxBytes = 1 << 20
        /// Deepest nesting of mappings and lists.
        public var maxDepth = 64
        /// Most nodes after aliases are expanded (an alias bomb expands exponentially).
        public var maxNodes = 200_000

        /// The default limits: 1 MiB, depth 64, 200,000 nodes.
        public init() {}
    }

    /// The limits in force.
    public var limits: Limits

    /// Creates a loader.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Loads a file from disk. `displayPath` is how diagnostics name it.
    public func load(contentsOf url: URL, displayPath: String, into log: DiagnosticLog) -> ConfigNode? {
        contents(of: url, displayPath: displayPath, into: log).flatMap { load(data: $0, displayPath: displayPath, into: log) }
    }

    /// Reads a file's bytes once, for `load(data:displayPath:into:)`, without reading a file whose
    /// size is over the limit; nil (and reported) when it is too large or cannot be read.
    public func contents(of url: URL, displayPath: String, into log: DiagnosticLog) -> Data? {
        let start = SourceLocation.start(of: displayPath)
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        if size > limits.maxBytes {
            log.error(
                "file-too-large",
                "file is \(Self.byteCount(size)); configuration files are limited to \(Self.byteCount(limits.maxBytes))",
                at: start, suggestion: "check that this is the file you meant; split large configurations into presets")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            reportUnreadable(displayPath, into: log)
            return nil
        }
        return data
    }

    /// Reports that the file shown as `displayPath` cannot be read.
    func reportUnreadable(_ displayPath: String, into log: DiagnosticLog) {
        log.error("unreadable-file", "cannot read file", at: .start(of: displayPath), suggestion: "check that it exists and is readable")
    }

    /// Loads YAML from bytes.
    public func load(data: Data, displayPath: String, into log: DiagnosticLog) -> ConfigNode? {
        let start = SourceLocation.start(of: displayPath)
        if data.count > limits.maxBytes {
            log.error(
                "file-too-large",
                "file is \(Self.byteCount(data.count)); configuration files are limited to \(Self.byteCount(limits.maxBytes))",
                at: start)
            return nil
        }
        if let offset = data.firstIndex(of: 0) {
            log.error(
                "binary-file", "file contains a NUL byte: this looks like binary data, not YAML",
                at: Self.location(ofByte: offset - data.startIndex, in: data, file: displayPath),
                suggestion: "configuration files are UTF-8 text")
            return nil
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            let offset = Self.firstInvalidUTF8Offset(in: data) ?? 0
            log.error(
                "invalid-utf8", "file is not valid UTF-8",
                at: Self.location(ofByte: offset, in: data, file: displayPath),
                suggestion: "save the file as UTF-8")
            return nil
        }
        return load(text: text, displayPath: displayPath, into: log)
    }

    /// Loads YAML from text.
    public func load(text: String, displayPath: String, into log: DiagnosticLog) -> ConfigNode? {
        // The scan stops at the first line nested too deep, before anything reads the whole
        // text: a text of 50 MB refused at its line 514 took half a minute to split into lines.
        if let problem = Composer.nestingProblem(in: text, limit: limits.maxDepth, file: displayPath) {
            log.report(problem)
            return nil
        }
        let outcome = Self.onLargeStack { [limits] in
            var composer = Composer(file: displayPath, text: text, limits: limits)
            return composer.compose()
        }
        for diagnostic in outcome.diagnostics { log.report(diagnostic) }
        return outcome.node
    }

    // MARK: - Composition

    /// The result of composing one document, handed back from the parsing thread.
    struct Outcome: Sendable {
        var node: ConfigNode?
        var diagnostics: [Diagnostic]
    }

    /// Runs `body` on a thread with a large stack and waits for it to end: Yams composes
    /// recursively, and a 10,000-deep document must produce an error, not a stack overflow.
    /// The thread is joined, so its result needs no lock: the join orders its write before the
    /// read here.
    static func onLargeStack(_ body: @escaping @Sendable () -> Outcome) -> Outcome {
        final class Job {
            let body: () -> Outcome
            var outcome: Outcome?
            init(_ body: @escaping () -> Outcome) { self.body = body }
        }
        let job = Job(body)
        // Allocated, not `pthread_attr_t()`: that initializer is Dispatch's import of the struct.
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        pthread_attr_init(attributes)
        defer {
            pthread_attr_destroy(attributes)
            attributes.deallocate()
        }
        pthread_attr_setstacksize(attributes, 512 << 20)
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let context = Unmanaged.passRetained(job).toOpaque()
        let created = pthread_create(&thread, attributes, { context in
            let context: UnsafeMutableRawPointer? = context
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            job.outcome = job.body()
            return nil
        }, context)
        guard created == 0 else {
            // No thread (out of address space for its stack): on this one, as deep as it goes.
            Unmanaged<Job>.fromOpaque(context).release()
            return body()
        }
        #if canImport(Darwin)
            pthread_join(thread!, nil)
        #else
            pthread_join(thread, nil)
        #endif
        return job.outcome!
    }

    /// Turns Yams nodes into `ConfigNode`s under the depth and node limits.
    struct Composer {
        let file: String
        let text: String
        let limits: Limits
        private var nodeCount = 0
        private var diagnostics: [Diagnostic] = []

        /// The text's last line as reports count lines: its number and its width.
        private let lastLine: (number: Int, width: Int)

        init(file: String, text: String, limits: Limits) {
            self.file = file
            self.text = text
            self.limits = limits
            let lines = text.sourceLines
            lastLine = (lines.count, lines.last.map { $0.unicodeScalars.count } ?? 0)
        }

        /// Composes a text that `nestingProblem(in:limit:file:)` has passed.
        mutating func compose() -> Outcome {
            if let problem = aliasInKeyProblem() {
                return Outcome(node: nil, diagnostics: [problem])
            }
            let root: Node?
            do {
                // One document per file; a second `---` is an error Yams reports itself.
                root = try Yams.compose(yaml: text, Resolver.basic)
            } catch let error as YamlError {
                return Outcome(node: nil, diagnostics: [diagnostic(for: error)])
            } catch {
                return Outcome(node: nil, diagnostics: [Diagnostic(.error, "yaml-syntax", "\(error)", at: .start(of: file))])
            }
            guard let root else {
                return Outcome(node: ConfigNode(.mapping([]), at: .start(of: file)), diagnostics: [])
            }
            do {
                let node = try convert(root, depth: 0)
                return Outcome(node: node, diagnostics: diagnostics)
            } catch {
                return Outcome(node: nil, diagnostics: diagnostics + [error.diagnostic])
            }
        }

        struct Abort: Error { var diagnostic: Diagnostic }

        /// Yams hashes every mapping key to find duplicates while it composes, so a key made of
        /// the aliases of an alias bomb takes exponential time before the node limit can apply.
        /// When the text has anchors and aliases, compose it once with the aliases disarmed (each
        /// `*` read as a private-use character, so an alias is plain text) and refuse keys that
        /// are aliases or collections holding aliases before anything is expanded.
        private func aliasInKeyProblem() -> Diagnostic? {
            guard text.contains("&"), text.contains("*") else { return nil }
            let marker = "\u{E000}"
            let root: Node?
            do {
                root = try Yams.compose(yaml: text.replacingOccurrences(of: "*", with: marker), Resolver.basic)
            } catch let error as YamlError {
                var problem = diagnostic(for: error)
                problem.message = problem.message.replacingOccurrences(of: marker, with: "*")
                return problem
            } catch {
                return nil
            }
            func isAlias(_ node: Node) -> Bool {
                guard case .scalar(let scalar) = node else { return false }
                return scalar.style == .plain && scalar.string.hasPrefix(marker)
            }
            func holdsAlias(_ node: Node) -> Bool {
                switch node {
                case .scalar: isAlias(node)
                case .sequence(let sequence): sequence.contains(where: holdsAlias)
                case .mapping(let mapping): mapping.contains { holdsAlias($0.key) || holdsAlias($0.value) }
                case .alias: true
                }
            }
            func aliasKey(in node: Node) -> Node? {
                switch node {
                case .sequence(let sequence):
                    for item in sequence { if let key = aliasKey(in: item) { return key } }
                case .mapping(let mapping):
                    for (key, value) in zip(mapping.keys, mapping.values) {
                        if holdsAlias(key) { return key }
                        if let found = aliasKey(in: value) { return found }
                    }
                case .scalar, .alias: break
                }
                return nil
            }
            guard let root, let key = aliasKey(in: root) else { return nil }
            let shape = key.mapping != nil ? "mappings" : key.sequence != nil ? "lists" : "aliases"
            return Diagnostic(.error, "complex-key", "mapping keys must be plain names, not \(shape)", at: location(key.mark))
        }

        /// The location of a node's or an error's mark, moved back onto the text when libyaml
        /// puts it past the end: the end of a text without a final line break is a line of its
        /// own there (an error at the end, or the empty node of `---`).
        private func location(_ mark: Mark?) -> SourceLocation {
            guard let mark else { return SourceLocation(file: file, line: 1, column: 1) }
            guard mark.line > lastLine.number else { return SourceLocation(file: file, line: mark.line, column: mark.column) }
            return SourceLocation(file: file, line: lastLine.number, column: lastLine.width + 1)
        }

        /// The location of the character `offset` characters into the text (where a reader error
        /// is, as Yams counts it).
        private func location(ofCharacter offset: Int) -> SourceLocation {
            let end = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex) ?? text.endIndex
            return YAMLLoader.location(atEndOf: text[..<end], file: file)
        }

        private mutating func convert(_ node: Node, depth: Int) throws(Abort) -> ConfigNode {
            nodeCount += 1
            if nodeCount > limits.maxNodes {
                throw Abort(diagnostic: Diagnostic(
                    .error, "yaml-too-large",
                    "document expands to more than \(limits.maxNodes) nodes (aliases expanding exponentially?)",
                    at: location(node.mark), suggestion: "remove the repeated aliases; onair configurations are small"))
            }
            if depth > limits.maxDepth {
                throw Abort(diagnostic: Diagnostic(
                    .error, "yaml-too-deep", "nesting deeper than \(limits.maxDepth) levels", at: location(node.mark)))
            }
            switch node {
            case .scalar(let scalar):
                return ConfigNode(.scalar(scalar.string, plain: scalar.style == .plain), at: location(scalar.mark))
            case .alias(let alias):
                return ConfigNode(.scalar("", plain: true), at: location(alias.mark))
            case .sequence(let sequence):
                var items: [ConfigNode] = []
                for item in sequence { items.append(try convert(item, depth: depth + 1)) }
                return ConfigNode(.sequence(items), at: location(sequence.mark))
            case .mapping(let mapping):
                var entries: [ConfigNode.Entry] = []
                for (key, value) in zip(mapping.keys, mapping.values) {
                    guard case .scalar(let keyScalar) = key else {
                        diagnostics.append(Diagnostic(
                            .error, "complex-key", "mapping keys must be plain names, not \(key.mapping != nil ? "mappings" : "lists")",
                            at: location(key.mark)))
                        continue
                    }
                    if keyScalar.string == "<<" {
                        diagnostics.append(Diagnostic(
                            .error, "merge-key", "YAML merge keys (`<<`) are not supported",
                            at: location(keyScalar.mark), suggestion: "use `extends:` to build on a preset"))
                        continue
                    }
                    entries.append(ConfigNode.Entry(
                        key: keyScalar.string, keyLocation: location(keyScalar.mark),
                        value: try convert(value, depth: depth + 1)))
                }
                return ConfigNode(.mapping(entries), at: location(mapping.mark))
            }
        }

        private func diagnostic(for error: YamlError) -> Diagnostic {
            switch error {
            case .duplicatedKeysInMapping(let duplicates, let context):
                let key = duplicates.first ?? "?"
                let second = Self.secondOccurrence(ofKey: key, after: context.mark, in: text, file: file)
                return Diagnostic(
                    .error, "duplicate-key",
                    "duplicate key '\(key)'" + (duplicates.count > 1 ? " (also: \(duplicates.dropFirst().joined(separator: ", ")))" : "")
                        + " — the first is at line \(context.mark.line)",
                    at: second ?? location(context.mark), suggestion: "remove or rename one of them")
            case .scanner(let context, let problem, let mark, _),
                 .parser(let context, let problem, let mark, _),
                 .composer(let context, let problem, let mark, _):
                let detail = context.map { "\(problem) \($0.text)".trimmingCharacters(in: .whitespaces) } ?? problem
                return Diagnostic(.error, "yaml-syntax", "YAML syntax error: \(detail)", at: location(mark),
                                  suggestion: Self.syntaxHint(problem, at: mark, in: text))
            case .reader(let problem, let offset, _, _):
                return Diagnostic(.error, "yaml-syntax", "YAML reader error: \(problem)",
                                  at: offset.map(location(ofCharacter:)) ?? .start(of: file))
            default:
                return Diagnostic(.error, "yaml-syntax", "\(error)", at: .start(of: file))
            }
        }

        static func syntaxHint(_ problem: String, at mark: Mark, in text: String) -> String? {
            // libyaml calls a tab in the indentation "a character that cannot start any token".
            if problem.contains("tab") || scalar(at: mark, in: text) == "\t" { return "indent with spaces, not tabs" }
            if problem.contains("mapping values are not allowed") {
                return "quote values that contain ': ' or check the indentation of this line"
            }
            if problem.contains("did not find expected key") { return "check the indentation of this line and the one before" }
            return nil
        }

        /// The character at `mark`, if the mark is inside the text.
        static func scalar(at mark: Mark, in text: String) -> Unicode.Scalar? {
            let lines = text.sourceLines
            guard mark.line >= 1, mark.line <= lines.count else { return nil }
            let scalars = lines[mark.line - 1].unicodeScalars
            guard mark.column >= 1, mark.column <= scalars.count else { return nil }
            return scalars[scalars.index(scalars.startIndex, offsetBy: mark.column - 1)]
        }

        /// Finds where `key:` is written again after the first occurrence, so the error points
        /// at the duplicate rather than the original.
        static func secondOccurrence(ofKey key: String, after mark: Mark, in text: String, file: String) -> SourceLocation? {
            let lines = text.sourceLines
            if mark.line >= 1, mark.line <= lines.count,
               let column = laterFlowEntry(ofKey: key, after: mark.column, in: lines[mark.line - 1]) {
                return SourceLocation(file: file, line: mark.line, column: column)
            }
            var lineNumber = 0
            for line in lines {
                lineNumber += 1
                guard lineNumber > mark.line else { continue }
                let indent = line.prefix { $0 == " " || $0 == "-" }.count
                let rest = line.dropFirst(indent)
                for form in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(form + ":") {
                    if indent + 1 == mark.column { return SourceLocation(file: file, line: lineNumber, column: indent + 1) }
                }
            }
            return nil
        }

        /// When the first `key` (at `column`) is an entry of a flow mapping (`{kind: a, kind: b}`),
        /// the column of a later entry of the same mapping written `key:` on the same line.
        static func laterFlowEntry(ofKey key: String, after column: Int, in line: Substring) -> Int? {
            let scalars = Array(line.unicodeScalars)
            func previous(_ index: Int) -> Unicode.Scalar? { scalars[..<index].last { $0 != " " } }
            guard column >= 1, column <= scalars.count, let before = previous(column - 1), before == "{" || before == "," else {
                return nil
            }
            var depth = 0, index = column - 1
            var quote: Unicode.Scalar?
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if let open = quote {
                    if scalar == open { quote = nil }
                    continue
                }
                switch scalar {
                case "{", "[": depth += 1
                case "}", "]":
                    depth -= 1
                    if depth < 0 { return nil }
                case "\"", "'":
                    if let before = previous(index - 1), [":", ",", "{", "["].contains(before) { quote = scalar }
                case "," where depth == 0:
                    var start = index
                    while start < scalars.count, scalars[start] == " " { start += 1 }
                    for form in [key, "\"\(key)\"", "'\(key)'"] {
                        let end = start + form.unicodeScalars.count
                        guard end <= scalars.count, scalars[start..<end].elementsEqual(form.unicodeScalars) else { continue }
                        var colon = end
                        while colon < scalars.count, scalars[colon] == " " { colon += 1 }
                        if colon < scalars.count, scalars[colon] == ":" { return start + 1 }
                    }
                default: break
                }
            }
            return nil
        }

        /// Cheap scan for flow or block nesting beyond the limit, before the recursive composer
        /// sees the text; it reads no further than the first line too deep. Columns count
        /// Unicode scalars, as Yams' do; lines end as `sourceLines` ends them.
        static func nestingProblem(in text: String, limit: Int, file: String) -> Diagnostic? {
            var depth = 0, line = 1, column = 0
            var quote: Unicode.Scalar?
            var inComment = false, afterCR = false
            // Block nesting: indentation grows by at least one column a level.
            var atLineStart = true, indent = 0
            for scalar in text.unicodeScalars {
                if scalar == "\n" || scalar == "\r" || scalar == "\u{85}" || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    if !(scalar == "\n" && afterCR) { line += 1 }
                    afterCR = scalar == "\r"
                    column = 0; indent = 0; atLineStart = true; inComment = false
                    continue
                }
                afterCR = false
                column += 1
                if atLineStart {
                    if scalar == " " {
                        indent += 1
                    } else {
                        atLineStart = false
                        if indent > limit * 8, scalar != "#" {
                            return Diagnostic(
                                .error, "yaml-too-deep", "indentation of \(indent) columns: nesting too deep",
                                at: SourceLocation(file: file, line: line, column: indent + 1))
                        }
                    }
                }
                if inComment { continue }
                if let open = quote {
                    if scalar == open { quote = nil }
                    continue
                }
                switch scalar {
                case "\"", "'": if depth > 0 { quote = scalar }
                case "#": inComment = true
                case "[", "{":
                    depth += 1
                    if depth > limit {
                        return Diagnostic(
                            .error, "yaml-too-deep", "nesting deeper than \(limit) levels",
                            at: SourceLocation(file: file, line: line, column: column),
                            suggestion: "onair configurations are a few levels deep; is this the right file?")
                    }
                case "]", "}": depth = max(0, depth - 1)
                default: break
                }
            }
            return nil
        }
    }

    // MARK: - Byte positions

    static func byteCount(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : bytes >= 1 << 10 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
    }

    /// The location of the byte `offset` bytes into `data`, in the lines and columns of the text
    /// reports quote (`data` decoded with each invalid sequence read as one character).
    static func location(ofByte offset: Int, in data: Data, file: String) -> SourceLocation {
        location(atEndOf: String(decoding: data.prefix(offset), as: UTF8.self), file: file)
    }

    /// The location just after `text`, which is the start of a file.
    static func location(atEndOf text: some StringProtocol, file: String) -> SourceLocation {
        let lines = text.sourceLines
        return SourceLocation(file: file, line: lines.count, column: lines[lines.count - 1].unicodeScalars.count + 1)
    }

    static func firstInvalidUTF8Offset(in data: Data) -> Int? {
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let byte = bytes[offset]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return offset
            }
            guard offset + length <= bytes.count else { return offset }
            for next in bytes[(offset + 1)..<(offset + length)] where next & 0xC0 != 0x80 { return offset }
            if String(validating: bytes[offset..<(offset + length)], as: UTF8.self) == nil { return offset }
            offset += length
        }
        return nil
    }
}
