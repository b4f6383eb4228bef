@testable import AVBridge
import CFFmpeg
import Foundation
import Synchronization
import Testing

/// Logs one message through libav's real `av_log` path (av_log itself is variadic).
private func libavLog(_ level: Int32, _ text: String) {
    withVaList([]) { arguments in
        text.withCString { av_vlog(nil, level, $0, arguments) }
    }
}

@Suite struct LibavLogTests {
    @Test func captureCollectsLinesWithTheirLevels() {
        let (result, lines) = LibavLog.capturing { () -> Int in
            libavLog(AV_LOG_ERROR, "an error from the test\n")
            libavLog(AV_LOG_WARNING, "a warning from the test\n")
            libavLog(AV_LOG_INFO, "some information\n")
            libavLog(AV_LOG_DEBUG, "debugging noise below the default level\n")
            return 42
        }
        #expect(result == 42)
        #expect(lines == [
            LibavLogLine(level: .error, message: "an error from the test"),
            LibavLogLine(level: .warning, message: "a warning from the test"),
            LibavLogLine(level: .info, message: "some information"),
        ])
    }

    @Test func partialLinesAreJoinedUntilTheNewline() {
        let (_, lines) = LibavLog.capturing {
            libavLog(AV_LOG_WARNING, "first half, ")
            libavLog(AV_LOG_ERROR, "second half\n")
        }
        #expect(lines == [LibavLogLine(level: .error, message: "first half, second half")])
    }

    @Test func capturesNestAndReleaseTheirLines() {
        let (inner, outer) = LibavLog.capturing { () -> [LibavLogLine] in
            libavLog(AV_LOG_ERROR, "outer before\n")
            let (_, inner) = LibavLog.capturing { libavLog(AV_LOG_ERROR, "inner\n") }
            libavLog(AV_LOG_ERROR, "outer after\n")
            return inner
        }
        #expect(inner.map(\.message) == ["inner"])
        #expect(outer.map(\.message) == ["outer before", "outer after"])
    }

    @Test func aFailingBodyKeepsTheLinesItLogged() {
        let (result, lines) = LibavLog.capturingResult { () throws(LibavError) -> Int32 in
            libavLog(AV_LOG_ERROR, "why it failed\n")
            return try LibavError.check(LibavErrorCode.invalidArgument.rawValue, "test_function")
        }
        #expect(throws: LibavError.self) { try result.get() }
        #expect(lines == [LibavLogLine(level: .error, message: "why it failed")])
    }

    @Test func handlerGetsLinesNoCaptureClaims() async throws {
        let received = Mutex<[LibavLogLine]>([])
        LibavLog.setHandler { line in received.withLock { $0.append(line) } }
        defer { LibavLog.setHandler(nil) }
        let marker = "handled-\(UUID().uuidString)"
        libavLog(AV_LOG_WARNING, "\(marker)\n")
        let (_, captured) = LibavLog.capturing { libavLog(AV_LOG_WARNING, "\(marker) captured\n") }
        let mine = received.withLock { $0.filter { $0.message.hasPrefix(marker) } }
        #expect(mine == [LibavLogLine(level: .warning, message: marker)])
        #expect(captured.map(\.message) == ["\(marker) captured"])
    }

    @Test func levelsMapAndOrderBySeverity() {
        #expect(LibavLogLevel(libavLevel: AV_LOG_PANIC) == .panic)
        #expect(LibavLogLevel(libavLevel: AV_LOG_FATAL) == .fatal)
        #expect(LibavLogLevel(libavLevel: AV_LOG_ERROR) == .error)
        #expect(LibavLogLevel(libavLevel: AV_LOG_WARNING) == .warning)
        #expect(LibavLogLevel(libavLevel: AV_LOG_INFO) == .info)
        #expect(LibavLogLevel(libavLevel: AV_LOG_VERBOSE) == .verbose)
        #expect(LibavLogLevel(libavLevel: AV_LOG_DEBUG) == .debug)
        #expect(LibavLogLevel(libavLevel: AV_LOG_TRACE) == .trace)
        #expect(LibavLogLevel.error > .warning)
        #expect(LibavLogLevel.warning > .info)
        #expect(LibavLogLevel.allCases.sorted() == LibavLogLevel.allCases)
    }

    @Test func initializeIsIdempotentAndRegistersTheLavfiDevice() {
        LibAV.initialize()
        LibAV.initialize()
        #expect(av_find_input_format("lavfi") != nil)
    }
}
