import OnairConfig

/// What one input of a failover group has been delivering, as timers: since when it has had no
/// data, a black picture, or silence, and since when it has been clean. Pure: fed with
/// observations and asked questions at a time (µs on the run's clock), so it is tested without
/// a clock or a stream.
struct SignalWatch: Equatable {
    /// How long a condition lasts before it counts as a failure (µs).
    let after: Int64
    /// The conditions that can make it fail.
    let watching: Set<FailoverCondition>
    /// Whether it is expected to carry sound (silence is only watched then).
    let hasSound: Bool
    /// When watching began: an input that never delivered is lost from then.
    private(set) var start: Int64
    /// When its last picture or sound arrived.
    private(set) var lastArrival: Int64?
    /// When its last sound arrived.
    private(set) var lastSound: Int64?
    /// When the current run of black pictures began.
    private(set) var blackSince: Int64?
    /// When the current run of silent sound began.
    private(set) var silentSince: Int64?
    /// The last time anything was wrong (a black picture, silence, a gap in the data).
    private(set) var lastTrouble: Int64

    /// The shortest gap in the data that counts as trouble: shorter ones are a network's jitter.
    static let longestJitter: Int64 = 500_000

    init(after: Int64, watching: Set<FailoverCondition>, hasSound: Bool, start: Int64) {
        self.after = after
        self.watching = watching
        self.hasSound = hasSound && watching.contains(.silence)
        self.start = start
        lastTrouble = start
    }

    /// Watching begins at `now` if nothing has arrived yet: the time a run spent preparing, or a
    /// combination waiting as a standby graph, is not time the input was lost.
    mutating func begin(at now: Int64) {
        guard lastArrival == nil else { return }
        start = now
        lastTrouble = now
    }

    /// A picture arrived at `now`; `black` when it is (nearly) all black.
    mutating func picture(at now: Int64, black: Bool) {
        arrived(at: now)
        guard watching.contains(.black) else { return }
        if black {
            if blackSince == nil { blackSince = now }
            lastTrouble = now
        } else {
            blackSince = nil
        }
    }

    /// Sound arrived at `now`; `silent` when its loudest sample is below the silence level.
    mutating func sound(at now: Int64, silent: Bool) {
        arrived(at: now)
        defer { lastSound = now }
        guard hasSound else { return }
        if now - (lastSound ?? start) > Self.gapTolerance(after) { lastTrouble = now }
        if silent {
            if silentSince == nil { silentSince = now }
            lastTrouble = now
        } else {
            silentSince = nil
        }
    }

    private mutating func arrived(at now: Int64) {
        if now - (lastArrival ?? start) > Self.gapTolerance(after) { lastTrouble = now }
        lastArrival = now
    }

    /// Gaps shorter than this are not trouble.
    private static func gapTolerance(_ after: Int64) -> Int64 { min(after, longestJitter) }

    /// The condition that has lasted at least `after` at `now`, if any (loss first: a lost
    /// input's last picture may well be black).
    func failure(at now: Int64) -> FailoverCondition? {
        if watching.contains(.loss), now - (lastArrival ?? start) >= after { return .loss }
        if let blackSince, now - blackSince >= after { return .black }
        if hasSound {
            if let silentSince, now - silentSince >= after { return .silence }
            // Pictures without any sound are as silent as sound below the level (while pictures
            // flow: when everything stops, that is loss, whichever stream stopped first).
            if now - (lastSound ?? start) >= after, let lastArrival, now - lastArrival <= Self.gapTolerance(after) { return .silence }
        }
        return nil
    }

    /// Whether nothing is wrong at `now`: data flows (whatever `when` says: an input that sends
    /// nothing can't stand in), the picture is not black, the sound not silent.
    func isHealthy(at now: Int64) -> Bool {
        guard let lastArrival, now - lastArrival <= Self.gapTolerance(after) else { return false }
        if blackSince != nil || silentSince != nil { return false }
        if hasSound, now - (lastSound ?? start) > Self.gapTolerance(after) { return false }
        return true
    }

    /// Whether it has been healthy for at least `duration` at `now`.
    func isClean(for duration: Int64, at now: Int64) -> Bool {
        isHealthy(at: now) && now - lastTrouble >= duration
    }
}

extension SignalWatch {
    /// The first time after `now` at which ``failure(at:)``, ``isHealthy(at:)`` or
    /// ``isClean(for:at:)`` (for `clear`) may answer otherwise without anything arriving: a
    /// condition lasting long enough, a gap growing past the jitter, a clean spell growing long
    /// enough. Nil when time alone changes nothing. What the compositor sleeps until.
    func nextChange(after now: Int64, clear: Int64) -> Int64? {
        let tolerance = Self.gapTolerance(after)
        var candidates = [blackSince.map { $0 + after }, lastTrouble + clear]
        if watching.contains(.loss) { candidates.append((lastArrival ?? start) + after) }
        if let lastArrival { candidates.append(lastArrival + tolerance + 1) }
        if hasSound {
            candidates += [silentSince.map { $0 + after }, (lastSound ?? start) + after, (lastSound ?? start) + tolerance + 1]
        }
        return candidates.compactMap { $0 }.filter { $0 > now }.min()
    }
}
