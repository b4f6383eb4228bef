/// How far a run's stop has come: the one value the supervisor keeps of it, beside its
/// ``RunLifecycle`` (which says what the API shows: `draining`, then `stopped` or `failed`).
///
/// ```
/// running ──stop, duration, failure──────▶ draining(flush: counting, send: counting)
/// running ──inputs ended by themselves───▶ draining(flush: none, send: waiting)
/// draining ──the encoders ended──────────▶ draining(send: counting)   (when it was waiting)
/// draining ──a budget's deadline─────────▶ draining(that budget: spent → cut)
/// draining ──second stop request─────────▶ aborting                   (every worker cut off)
/// draining, aborting ──workers ended─────▶ leaving                    (inputs asked to leave libav)
/// leaving ──input-exit deadline──────────▶ leaving(gaveUp: true)
/// ```
enum StopPhase: Equatable, Sendable {
    /// Not stopping.
    case running
    /// The workers finish what they have, each part within its budget.
    case draining(Drain)
    /// The operator asked a second time: every worker was cut off; waiting for them to end.
    case aborting
    /// Every worker has ended: the inputs leave libav.
    case leaving(Leaving)

    /// One budget of a drain: the graph's and encoders' flush, the destinations' send.
    enum Budget: Equatable, Sendable {
        /// Not counted: the flush of a run whose inputs ended by themselves (the encoders flush
        /// all they have).
        case none
        /// Not counting yet: the send waits for the encoders to end when the inputs ended by
        /// themselves.
        case waiting
        /// Counting down.
        case counting
        /// Spent, and what it covers had not ended: cut off as soon as it may be.
        case spent
        /// What it covers was cut off.
        case cut
    }

    /// A drain's two budgets.
    struct Drain: Equatable, Sendable {
        var flush: Budget
        var send: Budget
    }

    /// The end of a stop, once the workers have ended.
    struct Leaving: Equatable, Sendable {
        /// The workers were cut off at the operator's second request: the run was aborted.
        var aborted: Bool
        /// The inputs that had not left libav within their budget, and the run's threads still
        /// at work with them, were given up on.
        var gaveUp = false
    }

    /// Whether the run has begun to stop (its end is decided).
    var isStopping: Bool { self != .running }

    /// Whether the operator's second request cut the workers off.
    var wasAborted: Bool {
        switch self {
        case .aborting: true
        case .leaving(let leaving): leaving.aborted
        case .running, .draining: false
        }
    }
}
