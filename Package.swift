// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// Upcoming-feature flags every Swift target builds with.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// jemalloc, except in a sanitized build (scripts/sanitize sets ONAIR_SANITIZER): a sanitizer
/// brings its own allocator, and with two in one process one frees what the other allocated.
let allocatorLinking: [LinkerSetting] =
    ProcessInfo.processInfo.environment["ONAIR_SANITIZER"] == nil ? [.linkedLibrary("jemalloc", .when(platforms: [.linux]))] : []

/// ThreadSanitizer builds only: CSanitizerMutex, which shows ThreadSanitizer when a Mutex changes
/// hands inside Linux's uninstrumented Synchronization library (mutex_handoff.c). Linked into
/// every executable that runs onair's code: onair and the test bundle (through OnairTestSupport).
let threadSanitizing = ProcessInfo.processInfo.environment["ONAIR_SANITIZER"] == "thread"
let sanitizerTargets: [Target] = threadSanitizing ? [.target(name: "CSanitizerMutex")] : []
let sanitizerLinking: [Target.Dependency] =
    threadSanitizing ? [.target(name: "CSanitizerMutex", condition: .when(platforms: [.linux]))] : []

let package = Package(
    name: "onair",
    // macOS 15: Synchronization's Mutex, the one lock type.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "onair", targets: ["onair"]),
        .library(name: "OnairConfig", targets: ["OnairConfig"]),
        .library(name: "OnairPlanner", targets: ["OnairPlanner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // FFmpeg's C libraries (Debian 12: FFmpeg 5.1) plus a shim for the macros Swift can't import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavfilter libavutil libswscale libswresample libavdevice",
            providers: [.apt([
                "libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libavutil-dev",
                "libswscale-dev", "libswresample-dev", "libavdevice-dev",
            ])]
        ),
        // libsrt (the GnuTLS build FFmpeg links): destinations' SRT connections, whose statistics
        // (round trip, send buffer) adaptive bitrate reads.
        .systemLibrary(name: "CSRT", pkgConfig: "srt", providers: [.apt(["libsrt-gnutls-dev"])]),
        // C bodies a system library target can't hold (the av_log va_list trampoline).
        .target(name: "CFFmpegLog", dependencies: ["CFFmpeg"]),
        // connect() and close() of the executable, which libavformat's calls bind to (symbol
        // interposition: FFmpeg 5.1 has no API naming an RTMP output's socket), so that an RTMP
        // output knows the very socket libavformat connected for it.
        .target(name: "CConnectWatch"),
        // Per-pixel kernels libavfilter does too slowly for live 1080p (chroma key, auto lighting);
        // plain C on plane pointers, no FFmpeg. Optimised in every build: unoptimised, the
        // lighting kernel takes 14 ms a 720p picture instead of 0.5 ms, and a debug or sanitized
        // build of a run with auto lighting falls seconds behind real time.
        .target(name: "CFrameKernels", cSettings: [.unsafeFlags(["-O2"])]),
        // posix_spawn with the two file actions glibc declares only for C (closefrom, chdir).
        .target(name: "CSpawn"),
        // Child processes without Foundation's Process (fc-match, the tests' peers): see ChildProcess;
        // and this process's own usage (CPU, memory) and allocator.
        .target(name: "OnairProcess", dependencies: ["CSpawn"], swiftSettings: strictness),
        // jemalloc as the allocator of the executable that links this (onair), with its settings:
        // glibc's arenas fragment over hours of switches and reconnections (allocator.c).
        .target(name: "CAllocator", linkerSettings: allocatorLinking),
        // How a rendition's encoders are opened (codec fields and the x264 option list): plain
        // values the planner makes, AVBridge opens and the ffmpeg command prints. Its own module
        // because AVBridge may not depend on the planner, and one value must serve both.
        .target(name: "OnairEncoding", swiftSettings: strictness),
        // Owns every libav pointer; no C type leaves this module.
        .target(name: "AVBridge", dependencies: ["CFFmpeg", "CFFmpegLog", "CConnectWatch", "CFrameKernels", "CSRT", "OnairEncoding"], swiftSettings: strictness),
        // The control plane's vocabulary, which every module that watches or steers a run speaks:
        // `RunControl` and `ScheduleControl`, the status and event values, `EventName` (the one
        // list of events) and the event hub. A leaf: pure Swift, no other module of onair.
        .target(name: "OnairControl", dependencies: [.product(name: "DequeModule", package: "swift-collections")], swiftSettings: strictness),
        // Blocking work on a named thread of its own (never the concurrency pool), and awaiting it.
        .target(name: "OnairThreads", swiftSettings: strictness),
        // YAML with source locations, diagnostics, the schema and the typed configuration model.
        .target(name: "OnairConfig", dependencies: ["Yams", "OnairControl"], swiftSettings: strictness),
        // Font files: a family resolved once to the file drawtext loads, text measured from the
        // font's own tables as drawtext lays it out. Pure Swift.
        .target(name: "OnairFonts", dependencies: ["OnairProcess"], swiftSettings: strictness),
        // Pure Swift: validation rules, platform catalogue, compiler to PipelinePlan, renderers.
        .target(name: "OnairPlanner", dependencies: ["OnairConfig", "OnairFonts", "OnairEncoding"], swiftSettings: strictness),
        // Every check run on a plan, and the one loop over a pipeline's overlay combinations: the
        // planner's rules, then libav's own word (the graph configures, files decode, libx264
        // takes its options, SRT options suit onair's connection). Makes the findings `validate`
        // reports and the planned combinations `run` switches between.
        .target(name: "OnairValidation", dependencies: ["OnairConfig", "OnairPlanner", "OnairEncoding", "AVBridge"], swiftSettings: strictness),
        // Pictures of every destination at a moment of a show, without going live: the plan of
        // that moment built by libavfilter, fed one picture per source, encoded as PNG.
        .target(name: "OnairPreview", dependencies: ["OnairConfig", "OnairPlanner", "OnairValidation", "AVBridge", "OnairThreads"], swiftSettings: strictness),
        // Runs plans through libav. Consumes PipelinePlan values and planned combinations, never a
        // PipelineSpec; reads a plan's graph inputs through OnairValidation's PlannedSource, so the
        // graph that runs is the graph that was checked.
        // Twitch's VOD track as it goes on the wire: the FLV script-data messages that carry a
        // second AAC track in one RTMP session. Pure Swift bytes.
        .target(name: "OnairVODTrack", swiftSettings: strictness),
        .target(name: "OnairEngine", dependencies: ["OnairControl", "OnairThreads", "OnairProcess", "OnairConfig", "OnairPlanner", "OnairEncoding", "OnairValidation", "AVBridge",
                                                    "OnairVODTrack"],
                swiftSettings: strictness),
        // A show's schedule carried out on a running pipeline: the timeline resolved at the run's
        // start, each action prepared ahead and landing on a frame. Beside the engine, not on it:
        // it plans each moment of the show from the PipelineSpec, which the engine never sees, and
        // acts on a `ShowStage` (a running pipeline, or a test's).
        .target(name: "OnairShow", dependencies: ["OnairControl", "OnairConfig", "OnairPlanner", "OnairValidation"], swiftSettings: strictness),
        // What a terminal shows of a run: the live status block the console redraws.
        .target(name: "OnairTerminal", dependencies: ["OnairControl"], swiftSettings: strictness),
        // Measures destinations' links: a test pattern pushed to each ingest with a rising
        // bitrate, the throughput it sustains, which qualities fit, which ladder rung to stream.
        .target(name: "OnairLinkTest", dependencies: ["OnairConfig", "OnairPlanner", "OnairEncoding", "OnairEngine", "AVBridge", "OnairThreads"], swiftSettings: strictness),
        // Alerts: a run's events, filtered per `notify:` target, written as JSON, Slack or Discord
        // messages, signed as Standard Webhooks says, delivered through a bounded queue per
        // target with retries; never in the run's way.
        .target(
            name: "OnairNotify",
            dependencies: [
                "OnairConfig", "OnairControl",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictness
        ),
        // The record of every run (its events and a status sample a second, under
        // .onair/runs/), the list of runs and the report of one (text, JSON, one HTML file).
        .target(
            name: "OnairRecord",
            dependencies: ["OnairControl", "OnairProcess", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strictness
        ),
        // The HTTP API, Prometheus metrics, health probes and dashboard of a running pipeline,
        // served over RunControl (Hummingbird 2).
        .target(
            name: "OnairHTTP",
            dependencies: [
                "OnairControl", "OnairConfig", "OnairThreads", "OnairProcess", "OnairNotify", "OnairRecord", "OnairPreview",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.embedInCode("Dashboard"), .embedInCode("openapi.yaml")],
            swiftSettings: strictness
        ),
        // One run of a pipeline assembled: from the compiled pipeline to the prepared run and
        // the services beside it (its API, alerts, record, schedule), keys read once, the
        // timeline resolved once. What `onair run` calls; the CLI only parses and prints.
        .target(
            name: "OnairSession",
            dependencies: [
                "OnairControl", "OnairThreads", "OnairConfig", "OnairPlanner", "OnairValidation", "OnairEngine", "OnairShow", "OnairHTTP",
                "OnairNotify", "OnairRecord", "OnairPreview", "OnairLinkTest",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictness
        ),
        // Runs pipelines on orchestrators: Kubernetes manifests and systemd units from plans.
        .target(name: "OnairExport", dependencies: ["OnairConfig", "OnairPlanner", "Yams"], swiftSettings: strictness),
        // What the tests share: subprocesses, an nginx-rtmp ingest, ffprobe, loopback ports, the
        // built onair executable, golden files, seeded randomness. Only test targets depend on it.
        .target(
            name: "OnairTestSupport",
            dependencies: [
                "OnairProcess", "OnairThreads",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ] + sanitizerLinking,
            swiftSettings: strictness),
        // Coverage-guided fuzzing of the configuration language (scripts/fuzz): the target libFuzzer
        // calls, the invariants every input must keep, the seeds and the dictionary.
        .target(name: "OnairFuzzing", dependencies: ["OnairConfig", "OnairPlanner", "OnairFonts"], swiftSettings: strictness),
        // libFuzzer's entry point when built with -sanitize=fuzzer and -D LIBFUZZER; in both builds
        // it writes the dictionary and the seeds and replays inputs.
        .executableTarget(name: "onair-fuzz", dependencies: ["OnairFuzzing"], swiftSettings: strictness),
        .executableTarget(
            name: "onair",
            dependencies: [
                "OnairControl", "OnairConfig", "OnairPlanner", "OnairValidation", "OnairPreview", "OnairEngine", "OnairShow", "OnairHTTP",
                "OnairExport", "OnairLinkTest", "OnairNotify", "OnairRecord", "OnairTerminal", "OnairSession", "OnairThreads", "CAllocator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ] + sanitizerLinking,
            swiftSettings: strictness
        ),
        .testTarget(name: "OnairControlTests", dependencies: ["OnairControl", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairConfigTests", dependencies: ["OnairConfig", "OnairTestSupport"], resources: [.copy("FuzzFindings")], swiftSettings: strictness),
        .testTarget(name: "OnairFontsTests", dependencies: ["OnairFonts", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairPlannerTests", dependencies: ["OnairPlanner", "OnairFonts", "OnairTestSupport"], exclude: ["Golden"],
                    swiftSettings: strictness),
        .testTarget(name: "OnairFuzzingTests", dependencies: ["OnairFuzzing", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "AVBridgeTests", dependencies: ["AVBridge", "OnairEncoding", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairEngineTests", dependencies: ["OnairEngine", "OnairControl", "OnairThreads", "OnairValidation", "AVBridge", "OnairEncoding", "OnairFonts", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairLinkTestTests", dependencies: ["OnairLinkTest", "OnairConfig", "OnairPlanner", "OnairEngine", "OnairTestSupport"],
                    swiftSettings: strictness),
        .testTarget(name: "OnairExportTests", dependencies: ["OnairExport", "OnairPlanner", "OnairTestSupport"], exclude: ["Golden"], swiftSettings: strictness),
        .testTarget(name: "OnairCLITests", dependencies: ["OnairPlanner", "OnairControl", "OnairTerminal", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairHTTPTests", dependencies: ["OnairHTTP", "OnairEngine", "OnairControl", "OnairThreads", "OnairConfig", "OnairNotify", "OnairRecord", "OnairPreview", "OnairPlanner", "OnairValidation", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairValidationTests", dependencies: ["OnairValidation", "OnairConfig", "OnairPlanner", "OnairTestSupport"],
                    swiftSettings: strictness),
        .testTarget(name: "OnairPreviewTests", dependencies: ["OnairPreview", "OnairValidation", "OnairConfig", "OnairPlanner", "AVBridge", "OnairTestSupport"],
                    swiftSettings: strictness),
        .testTarget(
            name: "OnairNotifyTests",
            dependencies: ["OnairNotify", "OnairControl", "OnairConfig", "OnairTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictness),
        .testTarget(name: "OnairRecordTests", dependencies: ["OnairRecord", "OnairControl", "OnairConfig", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairShowTests", dependencies: ["OnairShow", "OnairControl", "OnairPlanner", "OnairConfig", "OnairTestSupport"],
                    swiftSettings: strictness),
        .testTarget(name: "OnairVODTrackTests", dependencies: ["OnairVODTrack", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairRunTests", dependencies: ["OnairPlanner", "OnairTestSupport"], swiftSettings: strictness),
    ] + sanitizerTargets
)
