// swift-tools-version: 6.0
import PackageDescription

/// Upcoming-feature flags every Swift target builds with.
let strictness: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "onair",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "onair", targets: ["onair"]),
        .library(name: "OnairConfig", targets: ["OnairConfig"]),
        .library(name: "OnairPlanner", targets: ["OnairPlanner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // C bodies a system library target can't hold (the av_log va_list trampoline).
        .target(name: "CFFmpegLog", dependencies: ["CFFmpeg"]),
        // Owns every libav pointer; no C type leaves this module.
        .target(name: "AVBridge", dependencies: ["CFFmpeg", "CFFmpegLog"], swiftSettings: strictness),
        // YAML with source locations, diagnostics, the schema and the typed configuration model.
        .target(name: "OnairConfig", dependencies: ["Yams"], swiftSettings: strictness),
        // Pure Swift: validation rules, platform catalogue, compiler to PipelinePlan, renderers.
        .target(name: "OnairPlanner", dependencies: ["OnairConfig"], swiftSettings: strictness),
        // Runs plans through libav; consumes PipelinePlan values only.
        .target(name: "OnairEngine", dependencies: ["OnairConfig", "OnairPlanner", "AVBridge"], swiftSettings: strictness),
        // Measures destinations' links: a test pattern pushed to each ingest with a rising
        // bitrate, the throughput it sustains, which qualities fit, which ladder rung to stream.
        .target(name: "OnairLinkTest", dependencies: ["OnairConfig", "OnairPlanner", "OnairEngine", "AVBridge"], swiftSettings: strictness),
        // Runs pipelines on orchestrators: Kubernetes manifests and systemd units from plans.
        .target(name: "OnairExport", dependencies: ["OnairPlanner", "Yams"], swiftSettings: strictness),
        // What the end-to-end tests share: subprocesses, an nginx-rtmp ingest, ffprobe, loopback
        // ports, the built onair executable. Only test targets depend on it.
        .target(name: "OnairTestSupport", swiftSettings: strictness),
        .executableTarget(
            name: "onair",
            dependencies: [
                "OnairConfig", "OnairPlanner", "OnairEngine", "OnairExport", "OnairLinkTest",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictness
        ),
        .testTarget(name: "OnairConfigTests", dependencies: ["OnairConfig"], swiftSettings: strictness),
        .testTarget(name: "OnairPlannerTests", dependencies: ["OnairPlanner"], resources: [.copy("Golden")], swiftSettings: strictness),
        .testTarget(name: "AVBridgeTests", dependencies: ["AVBridge"], swiftSettings: strictness),
        .testTarget(name: "OnairEngineTests", dependencies: ["OnairEngine", "AVBridge", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairLinkTestTests", dependencies: ["OnairLinkTest", "OnairConfig", "OnairPlanner", "OnairEngine", "OnairTestSupport"],
                    swiftSettings: strictness),
        .testTarget(name: "OnairExportTests", dependencies: ["OnairExport", "OnairPlanner", "OnairTestSupport"], exclude: ["Golden"], swiftSettings: strictness),
        .testTarget(name: "OnairCLITests", dependencies: ["OnairPlanner", "OnairTestSupport"], swiftSettings: strictness),
        .testTarget(name: "OnairRunTests", dependencies: ["OnairPlanner", "OnairTestSupport"], swiftSettings: strictness),
    ]
)
