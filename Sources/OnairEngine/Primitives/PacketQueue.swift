import Synchronization

/// The bounded buffer between one encoder (the producer, which must never block) and one
/// destination (the consumer, which may stall on a slow network).
///
/// When a packet does not fit, whole groups of pictures are dropped from the head: everything
/// from the oldest video keyframe up to, not including, the next one, audio in between
/// included. When the incoming packet belongs to the only group left, the incoming packets are
/// dropped instead until the next video keyframe arrives. Either way the queue never hands out
/// half a group after a drop: after any drop the head is a video keyframe (or the queue is
/// empty and skips to the next keyframe).
///
/// While a destination is disconnected, ``beginWaitingForKeyframe()`` keeps only the most recent
/// group, so the reconnected destination starts from the freshest keyframe.
///
/// ``droppedGOPs`` counts groups that lost at least one packet, whichever way they lost it.
///
/// The storage is one value behind a `Mutex`; the consumer sleeps on a ``ThreadSignal`` until a
/// packet or the end comes. Packets own libav state and move from the producer to the consumer
/// (``Transfer``), never shared. One thread pops.
public final class PacketQueue<Element: QueuedPacket>: Sendable {
    private let storage: Mutex<Storage>
    /// Rung when a packet or the end arrives: the consumer's.
    private let arrivals = ThreadSignal()

    /// A queue holding at most `capacityBytes` bytes and, when given, at most `maxCount` packets.
    public init(capacityBytes: Int, maxCount: Int? = nil) {
        precondition(capacityBytes > 0, "a packet queue needs a positive capacity")
        precondition(maxCount.map { $0 > 0 } ?? true, "a packet queue needs room for at least one packet")
        storage = Mutex(Storage(capacityBytes: capacityBytes, maxCount: maxCount ?? .max))
    }

    /// The most bytes the queue holds.
    public var capacityBytes: Int { storage.withLock { $0.capacityBytes } }
    /// The most packets the queue holds (`Int.max` when only bytes are bounded).
    public var maxCount: Int { storage.withLock { $0.maxCount } }
    /// Packets waiting.
    public var count: Int { storage.withLock { $0.count } }
    /// Bytes waiting.
    public var byteCount: Int { storage.withLock { $0.bytes } }
    /// Media time waiting (µs): from the oldest to the newest queued packet whose place on the
    /// timeline is known; 0 when fewer than two are.
    public var mediaMicros: Int64 { storage.withLock { $0.mediaMicros } }
    /// Packets dropped so far (from the head, or on arrival).
    public var droppedPackets: Int { storage.withLock { $0.droppedPackets } }
    /// Groups of pictures that lost at least one packet so far.
    public var droppedGOPs: Int { storage.withLock { $0.droppedGOPs } }
    /// True after ``close()``.
    public var isClosed: Bool { storage.withLock { $0.closed } }
    /// True between ``beginWaitingForKeyframe()`` and ``endWaitingForKeyframe()``.
    public var isWaitingForKeyframe: Bool { storage.withLock { $0.waitingForKeyframe } }
    /// True while arriving packets are dropped until the next video keyframe.
    public var isSkippingToKeyframe: Bool { storage.withLock { $0.skippingToKeyframe } }

    /// Adds `packet`, dropping whole groups when it does not fit; never blocks. Ignored after
    /// ``close()``. The caller gives the packet up: the consumer owns it next.
    public func push(_ packet: Element) {
        let item = Transfer(packet)
        storage.withLock { $0.push(item) }
        arrivals.ring()
    }

    /// The oldest packet, waiting up to `timeout` for one; nil on timeout, or once the queue is
    /// closed and empty.
    public func pop(timeout: Duration) -> sending Element? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (item, closed) = storage.withLock { storage in (storage.popFirst(), storage.closed) }
            if let item { return item.value }
            if closed || ContinuousClock.now >= deadline { return nil }
            arrivals.wait(until: deadline)
        }
    }

    /// Wakes the consumer for good: ``pop(timeout:)`` drains what is left, then returns nil.
    public func close() {
        storage.withLock { $0.closed = true }
        arrivals.ring()
    }

    /// Empties the queue without counting drops; packets arriving next are dropped (and
    /// counted) until a video keyframe.
    public func clear() {
        storage.withLock { storage in
            storage.release(upTo: storage.entries.count)
            storage.skippingToKeyframe = true
        }
    }

    /// Drops (and counts) packets from the head until the head is a video keyframe, so a
    /// reconnected destination resumes on one; with no keyframe queued, the queue empties and
    /// skips arriving packets to the next keyframe.
    public func resetToKeyframe() {
        storage.withLock { $0.resetToKeyframe() }
    }

    /// While the destination is disconnected: keeps only the most recent group (dropping and
    /// counting the older ones now and whenever a newer keyframe arrives).
    public func beginWaitingForKeyframe() {
        storage.withLock { $0.beginWaitingForKeyframe() }
    }

    /// Back to ordinary queueing, once the destination is connected again.
    public func endWaitingForKeyframe() {
        storage.withLock { $0.waitingForKeyframe = false }
    }
}

extension PacketQueue {
    /// One queued packet and what the queue needs to know once it is gone.
    fileprivate struct Entry {
        var packet: Transfer<Element>?
        let byteCount: Int
        let isVideoKeyframe: Bool
        let micros: Int64?
        /// Which group of pictures the packet belongs to.
        let group: Int
    }

    /// The queue's state, only touched under the mutex.
    fileprivate struct Storage {
        let capacityBytes: Int
        let maxCount: Int
        var entries: [Entry] = []
        var head = 0
        var bytes = 0
        var droppedPackets = 0
        var droppedGOPs = 0
        var closed = false
        var waitingForKeyframe = false
        var skippingToKeyframe = false
        /// The group the newest arriving packet belongs to; each video keyframe opens a new one.
        var currentGroup = 0
        /// Groups already counted in `droppedGOPs` that may still lose packets.
        var damagedGroups: Set<Int> = []

        init(capacityBytes: Int, maxCount: Int) {
            self.capacityBytes = capacityBytes
            self.maxCount = maxCount
        }

        var count: Int { entries.count - head }

        var mediaMicros: Int64 {
            guard let oldest = entries[head...].lazy.compactMap(\.micros).first,
                  let newest = entries[head...].reversed().lazy.compactMap(\.micros).first
            else { return 0 }
            return max(0, newest - oldest)
        }

        mutating func push(_ item: Transfer<Element>) {
            guard !closed else { return }
            let packet = item.value
            let isKeyframe = packet.isVideoKeyframe
            let size = packet.byteCount
            if isKeyframe { currentGroup += 1 }
            if skippingToKeyframe {
                guard isKeyframe else { return dropArriving() }
                skippingToKeyframe = false
            }
            guard size <= capacityBytes else { return dropArriving() }
            if waitingForKeyframe, isKeyframe { drop(upTo: entries.count) }
            while bytes + size > capacityBytes || count + 1 > maxCount {
                if let next = keyframeIndex(after: head) {
                    drop(upTo: next)
                } else if isKeyframe {
                    drop(upTo: entries.count)
                } else {
                    return dropArriving()
                }
            }
            entries.append(Entry(packet: item, byteCount: size, isVideoKeyframe: isKeyframe, micros: packet.mediaMicros, group: currentGroup))
            bytes += size
        }

        mutating func popFirst() -> Transfer<Element>? {
            guard head < entries.count else { return nil }
            let packet = entries[head].packet.take()
            bytes -= entries[head].byteCount
            head += 1
            compact()
            return packet
        }

        mutating func resetToKeyframe() {
            if head < entries.count, entries[head].isVideoKeyframe { return }
            if let next = keyframeIndex(after: head) {
                drop(upTo: next)
            } else {
                drop(upTo: entries.count)
                skippingToKeyframe = true
            }
        }

        mutating func beginWaitingForKeyframe() {
            waitingForKeyframe = true
            if let last = entries.indices.last(where: { $0 >= head && entries[$0].isVideoKeyframe }) {
                drop(upTo: last)
            } else {
                drop(upTo: entries.count)
                skippingToKeyframe = true
            }
        }

        /// The index of the first video keyframe after `index`, if one is queued.
        private func keyframeIndex(after index: Int) -> Int? {
            var candidate = index + 1
            while candidate < entries.count {
                if entries[candidate].isVideoKeyframe { return candidate }
                candidate += 1
            }
            return nil
        }

        /// Drops and counts the packets from the head up to `end`.
        private mutating func drop(upTo end: Int) {
            guard head < end else { return }
            for index in head..<end {
                droppedPackets += 1
                markDamaged(entries[index].group)
            }
            release(upTo: end)
        }

        /// Drops and counts the arriving packet, and every one after it until a keyframe.
        private mutating func dropArriving() {
            droppedPackets += 1
            markDamaged(currentGroup)
            skippingToKeyframe = true
        }

        /// Forgets the packets from the head up to `end` without counting them.
        mutating func release(upTo end: Int) {
            while head < end {
                entries[head].packet = nil
                bytes -= entries[head].byteCount
                head += 1
            }
            compact()
        }

        private mutating func markDamaged(_ group: Int) {
            guard damagedGroups.insert(group).inserted else { return }
            droppedGOPs += 1
            if damagedGroups.count > 16 {
                // Only groups still queued or still arriving can lose more packets.
                let oldestAlive = head < entries.count ? entries[head].group : currentGroup
                damagedGroups = damagedGroups.filter { $0 >= oldestAlive }
            }
        }

        private mutating func compact() {
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024, head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }
    }
}
