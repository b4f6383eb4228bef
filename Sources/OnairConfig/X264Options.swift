import Foundation

/// `x264_params`: libx264 options beyond a quality's own fields, written as ffmpeg's
/// `-x264-params` takes them (`subme=0:cabac=1`).
///
/// Here only their form is checked, and that none of them takes over what a quality's fields
/// (and the platform rules that read those fields) decide. Whether libx264 knows each option
/// and value is checked against libx264 itself when the plan is checked: FFmpeg 5.1 only warns
/// about an option x264 rejects and encodes without it.
public enum X264Options {
    /// Options a quality sets through its own fields, by x264's name (`_` written as `-`): a
    /// value here would silently undo what validate checked against the platforms.
    static let owned: [String: String] = [
        "bitrate": "bitrate", "vbv-maxrate": "max_bitrate", "vbv-bufsize": "buffer", "vbv-init": "buffer",
        "crf": "rate_control", "qp": "rate_control", "qp-constant": "rate_control", "nal-hrd": "rate_control", "filler": "rate_control",
        "force-cfr": "rate_control", "keyint": "keyframe_interval", "min-keyint": "keyframe_interval", "keyint-min": "keyframe_interval",
        "scenecut": "keyframe_interval (and the platform's keyframe rule)", "profile": "profile", "level": "level",
        "preset": "preset", "tune": "tune", "fps": "fps", "bframes": "tune (zerolatency: none)",
    ]

    /// The options of `text` as (key, value) pairs, or why they can't be read.
    public static func pairs(_ text: String) -> Result<[(key: String, value: String)], FormError> {
        var pairs: [(key: String, value: String)] = []
        for item in text.split(separator: ":", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2, !key.isEmpty, !parts[1].isEmpty else { return .failure(FormError(item: String(item))) }
            pairs.append((key, String(parts[1])))
        }
        return .success(pairs)
    }

    /// An item that is not `key=value`.
    public struct FormError: Error, Hashable, Sendable {
        /// The item as written (`cabac`, or empty between two `:`).
        public var item: String
    }

    /// `written` when its options are well formed and none is owned by another field; else
    /// the problems go to `log` at its location and the result is nil.
    static func check(_ written: Located<String>, log: DiagnosticLog) -> Located<String>? {
        switch pairs(written.value) {
        case .failure(let error):
            log.error("unknown-value", "x264_params item '\(error.item)' is not key=value",
                      at: written.location, suggestion: "write options as key=value joined by ':', e.g. \"subme=0:cabac=1\" (x264 takes ',' inside a value: deblock=-1,-1)")
            return nil
        case .success(let pairs):
            var valid = true
            for (key, _) in pairs {
                let name = key.lowercased().replacingOccurrences(of: "_", with: "-")
                guard let field = owned[name] else { continue }
                valid = false
                log.error("unknown-value", "x264_params can't set '\(key)': the quality's \(field) decides it",
                          at: written.location, suggestion: "remove '\(key)' from x264_params and set \(field) instead")
            }
            return valid ? written : nil
        }
    }
}
