import OnairThreads

/// How one of a run's workers ended.
enum WorkerOutcome: Equatable, Sendable {
    /// It did what it was for and ended (a file drained, an encoder flushed, a recording was
    /// closed with its trailer, a stop was obeyed).
    case finished
    /// It could not go on.
    case failed(String)
    /// It was cut off (``RunWorker/abort()``): what it held is lost.
    case aborted

    var failure: String? {
        if case .failed(let reason) = self { reason } else { nil }
    }
}

/// What a worker tells its run's supervisor, as it happens.
enum WorkerEvent: Sendable, Equatable {
    /// Its thread started (an input is watched from then on).
    case started
    /// Something went on air through it: a destination connected.
    case live
    /// It failed for good (a destination out of attempts or unable to finish its file, an input
    /// that can't be read); its end follows.
    case failed(String)
    /// Its thread is done: it has left libav.
    case ended(WorkerOutcome)
}

/// One of a run's threads — an input, the compositor, an encoder, a destination — as the
/// supervisor drives it: start it, ask it to finish what it has, cut it off. It reports what
/// happens to it (``WorkerEvent``) through the run's ``WorkerReports``.
protocol RunWorker: AnyObject, Sendable {
    /// What it is, for messages (`encoder r0`, `destination youtube`).
    var workerName: String { get }
    /// Starts its thread.
    func start()
    /// Finish what you have and end: inputs stop reading, the compositor drains its graph,
    /// encoders flush, destinations send what is queued and close cleanly (one still
    /// connecting gives up at once: it has nothing to finish).
    func requestStop()
    /// End at once; what is held is dropped.
    func abort()
}

/// Where a run's workers report: the one stream its supervisor's loop consumes, in the order
/// things happened (each worker's reports in the order it made them).
struct WorkerReports: Sendable {
    private let continuation: AsyncStream<SupervisorSignal>.Continuation
    /// The run's threads: each says here when it has let go of its work.
    let threads: RunThreads

    /// The stream the supervisor reads, and where workers (and the supervisor's own deadlines
    /// and requests) write into it.
    static func makeStream() -> (AsyncStream<SupervisorSignal>, WorkerReports) {
        let (stream, continuation) = AsyncStream.makeStream(of: SupervisorSignal.self)
        let threads = RunThreads(letGo: { continuation.yield(.threadLetGo) })
        return (stream, WorkerReports(continuation: continuation, threads: threads))
    }

    /// Starts a thread of the run (see ``RunThreads``).
    func startThread(named name: String, _ work: @escaping @Sendable () -> Void) {
        threads.start(named: name, work)
    }

    /// `worker` says `event`.
    func report(_ event: WorkerEvent, from worker: some RunWorker) {
        continuation.yield(.worker(worker, event))
    }

    /// Something of the supervisor's own: a deadline, a request.
    func signal(_ signal: SupervisorSignal) {
        continuation.yield(signal)
    }

    /// The run is over: nothing more comes.
    func finish() {
        continuation.finish()
    }
}
