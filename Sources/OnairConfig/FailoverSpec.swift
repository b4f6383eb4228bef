import OnairControl

/// What makes an input count as failed for failover.
public enum FailoverCondition: String, Codable, CaseIterable, Hashable, Sendable {
    /// No data for `after`.
    case loss
    /// The picture black for `after`.
    case black
    /// The sound below −50 dBFS for `after`.
    case silence
}

/// A source's backups: the sources that go on air in its place when it fails, in order of
/// preference, and when it counts as failed and as clean again.
public struct FailoverSpec: Hashable, Sendable {
    /// The backups, first preferred.
    public var backups: [Located<String>]
    /// What counts as a failure (all three unless `when:` says otherwise).
    public var when: [FailoverCondition]
    /// How long a condition lasts before it counts, ms.
    public var afterMs: Int
    /// How long the primary must be clean before it returns, and the least time between two
    /// switches, ms.
    public var clearMs: Int
    /// Where `failover:` is written.
    public var location: SourceLocation

    /// 1 s.
    public static let defaultAfterMs = 1000
    /// 3 s.
    public static let defaultClearMs = 3000

    /// Creates a failover declaration.
    public init(backups: [Located<String>], when: [FailoverCondition], afterMs: Int, clearMs: Int, location: SourceLocation) {
        self.backups = backups
        self.when = when
        self.afterMs = afterMs
        self.clearMs = clearMs
        self.location = location
    }

    /// Decodes `failover:` of source `source`.
    static func decode(_ reader: ObjectReader, source: String, location: SourceLocation) -> FailoverSpec {
        let log = reader.context.log
        var backups: [Located<String>] = []
        let written = reader.locatedWords("backups")
        for backup in written?.value ?? [] {
            if backup.value == source {
                log.error("failover-self", "source '\(source)' can't be its own backup", at: backup.location,
                          suggestion: "name another source, e.g. a phone or a second camera")
            } else if backups.contains(where: { $0.value == backup.value }) {
                log.error("failover-duplicate", "'\(backup.value)' is listed twice in the backups of '\(source)'", at: backup.location,
                          suggestion: "remove the second '\(backup.value)'")
            } else {
                backups.append(backup)
            }
        }
        if let written, written.value.isEmpty {
            log.error("failover-empty", "the failover of '\(source)' names no backup", at: written.location,
                      suggestion: "write backups: [phone] with the sources to cut to")
        }
        var when: [FailoverCondition] = []
        if let written = reader.locatedWords("when") {
            for word in written.value {
                guard let condition = FailoverCondition(rawValue: word.value) else { continue }
                if when.contains(condition) {
                    log.warning("failover-duplicate", "'\(word.value)' is listed twice in 'when' of '\(source)'", at: word.location,
                                suggestion: "remove the second '\(word.value)'")
                } else {
                    when.append(condition)
                }
            }
            if written.value.isEmpty {
                log.error("failover-empty", "'when' of '\(source)' names no condition: it would never fail over", at: written.location,
                          suggestion: "write when: [loss, black, silence], or leave 'when' out for all three")
            }
        } else {
            when = FailoverCondition.allCases
        }
        return FailoverSpec(
            backups: backups, when: when,
            afterMs: reader.duration("after")?.value ?? defaultAfterMs,
            clearMs: reader.duration("clear")?.value ?? defaultClearMs,
            location: location)
    }
}

extension FailoverSpec {
    /// Checks every source's failover against the other decoded sources (a backup that is no
    /// source is reported with the pipeline's other references): backups that can't stand in (a
    /// still image), have backups of their own (chains and cycles), back up two sources, or
    /// differ in size, rate or sound (what onair then does).
    static func check(_ sources: [SourceSpec], inputLoss: InputLossPolicy, log: DiagnosticLog) {
        var backedUp: [String: String] = [:]
        for primary in sources {
            guard let failover = primary.failover else { continue }
            if failover.when.contains(.silence), !primary.hasAudio {
                log.error("failover-silence", "'\(primary.name)' has no sound, so its silence can't be watched", at: failover.location,
                          suggestion: "remove 'silence' from 'when'")
            }
            if failover.when.contains(.loss), failover.afterMs >= inputLoss.afterMs {
                log.warning("failover-late", "the failover of '\(primary.name)' waits \(Units.formatDuration(failover.afterMs)), but after \(Units.formatDuration(inputLoss.afterMs)) without data its last picture is already held (input_loss.after)",
                            at: failover.location, suggestion: "set 'after' below \(Units.formatDuration(inputLoss.afterMs)), e.g. after: 1s")
            }
            for reference in failover.backups {
                guard let backup = sources.first(where: { $0.name == reference.value }) else { continue }
                if let other = backedUp[backup.name] {
                    log.error("failover-shared", "'\(backup.name)' already backs up '\(other)'; a source backs up one source at most",
                              at: reference.location, suggestion: "give '\(primary.name)' a backup of its own")
                } else {
                    backedUp[backup.name] = primary.name
                }
                if let own = backup.failover {
                    let cycle = own.backups.contains { $0.value == primary.name }
                    log.error(cycle ? "failover-cycle" : "failover-chain",
                              cycle ? "'\(primary.name)' and '\(backup.name)' are each other's backup"
                                    : "backup '\(backup.name)' of '\(primary.name)' has backups of its own",
                              at: reference.location,
                              suggestion: cycle ? "keep the failover on the main source only"
                                  : "list every backup on '\(primary.name)' in order: backups: [" + ([backup.name] + own.backups.map(\.value)).joined(separator: ", ") + "]")
                }
                if case .test = backup.kind {
                    log.error("failover-test", "backup '\(backup.name)' of '\(primary.name)' is a test source", at: reference.location,
                              suggestion: "a backup is a camera, a stream or a video file; what shows when every input fails is input_loss.slate")
                }
                if backup.isStillImage {
                    log.error("failover-still", "backup '\(backup.name)' of '\(primary.name)' is a still image", at: reference.location,
                              suggestion: "a picture to show when every input fails is input_loss.slate")
                }
                if let primarySize = primary.size, let backupSize = backup.size, primarySize != backupSize {
                    log.warning("failover-size", "backup '\(backup.name)' is \(backupSize) and '\(primary.name)' \(primarySize): onair scales the backup's pictures to \(primarySize) while it is on air",
                                at: reference.location, suggestion: "fine as it is; send \(primarySize) from the backup to spare the scaling")
                }
                if let primaryFPS = primary.fps, let backupFPS = backup.fps, primaryFPS != backupFPS {
                    log.warning("failover-fps", "backup '\(backup.name)' runs at \(backupFPS) fps and '\(primary.name)' at \(primaryFPS): the scene keeps its own frame rate, repeating or dropping the backup's pictures",
                                at: reference.location, suggestion: "fine as it is; send \(primaryFPS) fps from the backup for the smoothest picture")
                }
                if primary.hasAudio, !backup.hasAudio {
                    log.warning("failover-no-sound", "backup '\(backup.name)' has no sound: while it stands in for '\(primary.name)' the broadcast is silent",
                                at: reference.location, suggestion: "give the backup a microphone, or pick one with sound")
                }
            }
        }
    }
}
