import Foundation
import OnairConfig
import OnairPlanner
import OnairValidation
import OnairTestSupport
import Testing

@Suite("SRT destinations checked against onair's own SRT connection")
struct PlanSRTCheckTests {
    @Test("a URL without a port is an error, options only FFmpeg's protocol applies a warning (saying what adaptive bitrate loses), both at the URL; a URL onair connects itself passes")
    func urls() throws {
        let project = try showProject(quality: "{width: 320, height: 180, fps: 30, video: {bitrate: 300k}}", destinations: [
            #"noport: {kind: url, url: "srt://10.0.0.9?streamid=x"}"#,
            #"foreign: {kind: url, url: "srt://10.0.0.9:9000?ipttl=4&mode=listener", adaptive: {min_bitrate: 200k}}"#,
            #"own: {kind: url, url: "srt://10.0.0.9:9001?streamid=live&passphrase={key}&latency=500000", key: {env: SRT_KEY}}"#,
        ])
        defer { project.remove() }
        let (plan, spec) = try plannedPipeline("show", in: project.root)
        let log = DiagnosticLog()
        PlanSRTCheck.run(plan, spec: spec, log: log)
        let found = log.all
        #expect(found.count == 2, "\(found)")
        let port = try #require(found.first { $0.code == "srt-port" })
        #expect(port.severity == .error && port.location.line == 9 && port.location.column == 28 && port.message.contains("'noport'"), "\(port)")
        let foreign = try #require(found.first { $0.code == "srt-options" })
        #expect(foreign.severity == .warning && foreign.location.line == 10 && foreign.location.column == 29, "\(foreign)")
        #expect(foreign.message.contains("ipttl, mode=listener") && foreign.message.contains("adaptive bitrate"), "\(foreign.message)")
    }
}
