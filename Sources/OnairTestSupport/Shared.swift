import Foundation

/// A value several test threads share, only touched under its lock.
public final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A shared `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value under the lock.
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    public var current: Value { withLock { $0 } }
}
