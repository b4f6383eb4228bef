import Foundation
import OnairTestSupport
import Testing

extension EndToEnd {
    /// The dashboard of a live run in a real browser (Debian's headless Chromium).
    @Suite("The dashboard in a browser")
    struct Dashboard {
        /// Where the screenshot is kept: `.build/screenshots/dashboard.png` in the repository.
        static let screenshot = repositoryRoot.appendingPathComponent(".build/screenshots/dashboard.png")

        @Test("one tile per destination with its state and its preview loaded; overlay buttons; the event timeline; a screenshot is kept",
              .hangGuard)
        func rendered() async throws {
            let project = try ScratchProject(shipped: true)
            defer { project.remove() }
            let api = try await APIRun(pipeline: "demo", project: project.path, arguments: ["--duration", "120s"])
            defer { api.run.child.terminate() }
            #expect(await api.poll("/readyz", timeout: .seconds(30)) { $0.status == 200 } != nil)

            let browser = try await HeadlessBrowser.showing(api.base + "/")
            defer { browser.close() }
            let rendered = try await browser.waitUntil("""
                document.body.dataset.ready === "true"
                  && document.querySelectorAll(".tile").length === 2
                  && [...document.querySelectorAll(".tile .preview img")].every(img => img.dataset.loaded === "true" && img.naturalWidth > 0)
                  && Number(document.querySelector("#events").dataset.count || 0) >= 5
                """, timeout: .seconds(30))
            // Let the sparklines gather a few seconds before the picture is taken.
            try await Task.sleep(for: .seconds(4))
            try FileManager.default.createDirectory(at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
            try browser.screenshot(to: Self.screenshot)
            let dom = (try? browser.dom()) ?? ""
            #expect(rendered, "the dashboard did not render: \(dom.prefix(3000))")
            // A meter per sound on air: the demo's camera tone (a sine at 1/8 of full scale, −3 dB in
            // each channel: about −21 LUFS), its bar filled that far.
            let meter = "document.querySelector('#meters .meter')"
            let metered = try await browser.waitUntil("""
                (m => m && m.dataset.mix === 'camera' && (v => v > -25 && v < -17)(Number(m.querySelector('[role=meter]').getAttribute('aria-valuenow')))
                   && parseFloat(m.querySelector('.fill').style.width) > 50 && m.querySelector('.figures').textContent.includes('LUFS'))(\(meter))
                """, timeout: .seconds(10))
            #expect(metered, "the meter: \(String(describing: try? browser.evaluate("\(meter)?.outerHTML")))")

            // A preview is fetched again every second, and an image whose source was just
            // replaced has no size until the new one is decoded: read the tiles while every
            // preview shows a picture (up to 10 s; a slow machine widens that gap).
            let tiles = try #require(try browser.evaluate("""
                (async () => {
                    const shown = () => [...document.querySelectorAll(".tile .preview img")].every(img => img.complete && img.naturalWidth > 0);
                    for (let tries = 0; tries < 100 && !shown(); tries++) await new Promise(resolve => setTimeout(resolve, 100));
                    return [...document.querySelectorAll(".tile")].map(tile => ({
                        name: tile.dataset.destination, state: tile.querySelector(".state").dataset.state,
                        badge: tile.querySelector(".state").textContent, width: tile.querySelector(".preview img").naturalWidth,
                        height: tile.querySelector(".preview img").naturalHeight, bitrate: tile.querySelector(".bitrate").textContent }));
                })()
                """) as? [[String: Any]])
            #expect(tiles.compactMap { $0["name"] as? String } == ["landscape", "vertical"])
            #expect(tiles.allSatisfy { $0["state"] as? String == "live" && $0["badge"] as? String == "live" }, "\(tiles)")
            // Each preview is its destination's own picture: the 16:9 one is wide, the 9:16 crop tall.
            if let landscape = tiles.first, let vertical = tiles.last,
               let wide = landscape["width"] as? Int, let wideHeight = landscape["height"] as? Int,
               let tall = vertical["width"] as? Int, let tallHeight = vertical["height"] as? Int {
                #expect(wide > wideHeight && tall < tallHeight, "\(tiles)")
            }
            #expect(tiles.allSatisfy { ($0["bitrate"] as? String)?.hasSuffix("b/s") == true }, "\(tiles)")

            let buttons = try browser.evaluate("[...document.querySelectorAll('#overlays button')].map(b => b.dataset.overlay + (b.classList.contains('on-air') ? '*' : ''))") as? [String]
            #expect(buttons == ["virtual-studio*", "room", "avatar"])
            let timeline = try browser.evaluate("[...document.querySelectorAll('#events .kind')].map(k => k.textContent)") as? [String] ?? []
            #expect(timeline.last == "run.started", "oldest last: \(timeline)")
            #expect(timeline.contains("destination.live"))

            // A button switches live, and the page follows.
            _ = try browser.evaluate("document.querySelector('#overlays button[data-overlay=\"room\"]').click()")
            let switched = try await browser.waitUntil("document.querySelector('#overlays button.on-air')?.dataset.overlay === 'room' && document.querySelector('#overlay-on-air').textContent === 'room'", timeout: .seconds(15))
            #expect(switched)
            // room reads the camera as two inputs, its pictures and its tone: a row each, told apart.
            let inputRows = "[...document.querySelectorAll('#inputs tr')].map(row => row.querySelector('td').textContent)"
            let toldApart = try await browser.waitUntil("""
                (rows => rows.includes('camera') && rows.includes('camera (sound)') && new Set(rows).size === rows.length)(\(inputRows))
                """, timeout: .seconds(10))
            #expect(toldApart, "the inputs: \(String(describing: try? browser.evaluate(inputRows)))")
            #expect(try await browser.waitUntil("document.querySelector('#events .kind').textContent === 'overlay.applied'", timeout: .seconds(10)),
                    "the newest event is first")
            let status = try await api.get("/api/v1/status")
            #expect(status.json?["overlay"] as? String == "room")

            // The header links to this run's report, as recorded so far: a destination plot each.
            #expect(try browser.evaluate("document.querySelector('header a.report')?.getAttribute('href')") as? String == "/report")
            try await OwnThread.run { try browser.open(api.base + "/report") }
            #expect(try await browser.waitUntil(
                "document.querySelectorAll('svg.plot polyline').length >= 4 && document.title.includes('demo')", timeout: .seconds(15)),
                    "the report: \(((try? browser.dom()) ?? "").prefix(2000))")
        }

        @Test("an hls destination plays in the dashboard's <video>: playback starts and its time advances while the run goes on",
              .hangGuard)
        func hlsPlayer() async throws {
            let project = try ScratchProject(destinations: [("web", "{kind: hls, directory: ../out/web, segment: 1s, playlist_size: 6}")])
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "90s"])
            defer { api.run.child.terminate() }
            #expect(await api.poll("/readyz", timeout: .seconds(30)) { $0.status == 200 } != nil)

            let browser = try await HeadlessBrowser.showing(api.base + "/")
            defer { browser.close() }
            let video = "document.querySelector('.player[data-destination=\"web\"] video')"
            let playing = try await browser.waitUntil(
                "\(video)?.currentTime > 0.5 && !\(video).paused && \(video).readyState >= 2", timeout: .seconds(40))
            let state = { (try? browser.evaluate(
                "JSON.stringify({t: \(video)?.currentTime, error: \(video)?.error?.message, state: document.querySelector('.player')?.dataset.state, "
                    + "supported: document.createElement('video').canPlayType('application/vnd.apple.mpegurl')})") as? String) ?? "?" }
            try #require(playing, "no playback: \(state()) \(((try? browser.dom()) ?? "").prefix(2000))")
            let first = try #require(try browser.evaluate("\(video).currentTime") as? Double)
            try await Task.sleep(for: .seconds(4))
            let later = try #require(try browser.evaluate("\(video).currentTime") as? Double)
            // Real time goes on: 4 s later the player is at least 2 s further (a stall would leave it where it was).
            #expect(later - first > 2, "currentTime \(first) → \(later): \(state())")
            #expect(try browser.evaluate("document.querySelector('.player[data-destination=\"web\"]').dataset.state") as? String == "playing")
            let status = try await api.get("/api/v1/status")
            #expect(status.json?["state"] as? String == "live", "the run went on while it played")
        }

        @Test("before a destination is live its tile shows the picture onair preview draws, labelled planned, then nothing stops the run",
              .hangGuard)
        func plannedPreview() async throws {
            // Nothing listens on the port: the run stays starting, retrying its one destination.
            let port = try LoopbackPort.free()
            let project = try ScratchProject(destinations: [("studio", Destination.rtmp(port: port, keyVariable: "KEY_STUDIO"))],
                                         scene: RunPipeline.redAndBlueScene)
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, keys: ["KEY_STUDIO": "planned-key"],
                                       arguments: ["--duration", "60s"])
            defer { api.run.child.terminate() }
            let reply = try #require(await api.poll("/api/v1/destinations/studio/preview.jpg", timeout: .seconds(30)) { $0.status == 200 })
            #expect(reply.header("X-Picture-Source") == "planned")
            #expect(try await api.get("/api/v1/status").json?["state"] as? String == "starting")
            let file = project.file("planned.jpg")
            try reply.body.write(to: file)
            let colour = try #require(await FFprobe.frameColours(of: file.path)?.first)
            #expect(colour.v > 200 && colour.u < 128, "the red camera on air: \(colour)")

            let browser = try await HeadlessBrowser.showing(api.base + "/")
            defer { browser.close() }
            let tile = "document.querySelector('.tile[data-destination=\"studio\"]')"
            let shown = try await browser.waitUntil("""
                \(tile)?.dataset.picture === "planned" && \(tile).querySelector(".preview img").naturalWidth > 0
                  && getComputedStyle(\(tile).querySelector(".picture-label")).display !== "none"
                """, timeout: .seconds(30))
            #expect(shown, "\(((try? browser.dom()) ?? "").prefix(3000))")
            #expect(try browser.evaluate("\(tile).querySelector('.picture-label').textContent") as? String == "planned preview")
        }

        @Test("the schedule's strip shows fired, pending and cancelled actions and the next one's countdown moves between polls",
              .hangGuard)
        func schedule() async throws {
            let scene = RunPipeline.redAndBlueScene + """

                schedule:
                  - {at: +15s, overlay: blue}
                  - {at: +80s, overlay: red}

                """
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: scene)
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "90s"])
            defer { api.run.child.terminate() }
            #expect(await api.poll("/readyz", timeout: .seconds(30)) { $0.status == 200 } != nil)

            let browser = try await HeadlessBrowser.showing(api.base + "/")
            defer { browser.close() }
            let strip = "document.querySelectorAll('#schedule-strip .mark')"
            let shown = try await browser.waitUntil(
                "!document.querySelector('#schedule').hidden && \(strip).length === 2 && document.querySelector('#schedule-next').dataset.id === '1'",
                timeout: .seconds(20))
            #expect(shown, "\(((try? browser.dom()) ?? "").prefix(3000))")
            // The countdown runs between the page's polls: a second later it is lower.
            let countdown = "Number(document.querySelector('#schedule-next .countdown').dataset.ms)"
            let before = try #require(try browser.evaluate(countdown) as? Double)
            try await Task.sleep(for: .milliseconds(1200))
            let later = try #require(try browser.evaluate(countdown) as? Double)
            #expect(before > 0 && later < before - 300, "countdown \(before) → \(later)")

            // Cancelled through the API, fired by the run: the strip follows.
            #expect(try await api.get("/api/v1/schedule/2", method: "DELETE").status == 200)
            let states = "[...\(strip)].map(m => m.dataset.id + ':' + m.dataset.state).join(',')"
            let followed = try await browser.waitUntil("\(states) === '1:fired,2:cancelled'", timeout: .seconds(30))
            #expect(followed, "\((try? browser.evaluate(states)) ?? "?")")
            #expect(try browser.evaluate("document.querySelector('#schedule-next .what').textContent") as? String == "nothing pending")
            #expect(try browser.evaluate("document.querySelector('#schedule-entries li[data-id=\"2\"]').dataset.state") as? String == "cancelled")
            try browser.screenshot(to: Self.screenshot.deletingLastPathComponent().appendingPathComponent("dashboard-schedule.png"))
        }

        @Test("the mixer shows a strip per mix with each member's level; a mute click and a typed level reach the run", .hangGuard)
        func mixer() async throws {
            let project = try ScratchProject(destinations: [("rec", Destination.record("out/rec.mkv"))], scene: EndToEnd.Mixes.scene)
            defer { project.remove() }
            let api = try await APIRun(pipeline: RunPipeline.name, project: project.path, arguments: ["--duration", "60s"])
            defer { api.run.child.terminate() }
            #expect(await api.poll("/readyz", timeout: .seconds(30)) { $0.status == 200 } != nil)

            let browser = try await HeadlessBrowser.showing(api.base + "/")
            defer { browser.close() }
            let faders = "[...document.querySelectorAll('#mixes .strip')].map(s => s.dataset.mix + ':' + [...s.querySelectorAll('.fader')].map(f => f.dataset.source + '=' + f.querySelector('input[type=number]').value).join(',')).join(' ')"
            let shown = try await browser.waitUntil("!document.querySelector('#mixer').hidden && \(faders) === 'program:voice=0,music=-6,guest=0'",
                                                    timeout: .seconds(20))
            #expect(shown, "\((try? browser.evaluate(faders)) ?? "?")")
            let music = "document.querySelector('#mixes [data-mix=\"program\"] [data-source=\"music\"]')"
            _ = try browser.evaluate("\(music).querySelector('button').click()")
            let muted = try await browser.waitUntil("\(music).querySelector('button').getAttribute('aria-pressed') === 'true'", timeout: .seconds(10))
            #expect(muted)
            _ = try browser.evaluate("(n => { n.value = '-20'; n.dispatchEvent(new Event('change')); })(\(music).querySelector('input[type=number]'))")
            let status = try #require(await api.poll("/api/v1/status", timeout: .seconds(10)) { answer in
                let members = ((answer.json?["mixes"] as? [[String: Any]])?.first?["members"] as? [[String: Any]]) ?? []
                return members.contains { $0["name"] as? String == "music" && $0["gain_db"] as? Double == -20 && $0["muted"] as? Bool == true }
            }, "the run never got the mixer's changes")
            #expect(status.status == 200)
            try browser.screenshot(to: Self.screenshot.deletingLastPathComponent().appendingPathComponent("dashboard-mixer.png"))
        }
    }
}
