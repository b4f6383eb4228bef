/// "Did you mean" suggestions by edit distance, as command-line tools and compilers offer them.
public enum Suggestion {
    /// The candidate closest to `word`, when it is close enough to be a plausible typo.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        let limit = max(2, word.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// A "did you mean 'x'?" phrase, or a list of what is allowed when nothing is close.
    public static func phrase(for word: String, in candidates: [String], listing: Bool = true) -> String? {
        if let match = closest(to: word, in: candidates) { return "did you mean '\(match)'?" }
        guard listing, !candidates.isEmpty else { return nil }
        let shown = candidates.prefix(12).map { "'\($0)'" }.joined(separator: ", ")
        return "expected one of \(shown)\(candidates.count > 12 ? ", …" : "")"
    }

    /// Levenshtein distance between two strings (in Characters).
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
