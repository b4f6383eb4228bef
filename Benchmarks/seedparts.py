"""Parts 4 and 5 of Benchmarks/run: the seed overlay combinations from a live 1080p30 camera
(speed against the printed ffmpeg command, where onair's CPU goes, picture quality), and what
each x264 setting costs and keeps on them. See Benchmarks/README.md.

  BENCH_COMBINATIONS     which seed combinations parts 4 and 5 run (default "keyed room avatar")
  BENCH_QUALITY_SECONDS  media seconds of the picture-quality comparisons (default 5)
  BENCH_ENCODERS         part 5's x264 settings, each preset[:x264_params] (default "veryfast
                         superfast superfast:subme=0 ultrafast:cabac=1:deblock=0,0 ultrafast")
  BENCH_X264_PRESET      part 4 encodes both renditions with this x264 preset instead of the
                         quality presets' own (superfast), e.g. veryfast
  BENCH_PROFILE          part 4 profiles one more onair run per combination with perf: 1, 0, or
                         auto (default: when perf can sample)
"""

import os
import shutil
import subprocess

import benchlib as bench

COMBINATIONS = os.environ.get("BENCH_COMBINATIONS", "keyed room avatar").split()
QUALITY_SECONDS = int(os.environ.get("BENCH_QUALITY_SECONDS", "5") or 0)
X264_PRESET = os.environ.get("BENCH_X264_PRESET", "")
ENCODERS = os.environ.get("BENCH_ENCODERS", "veryfast superfast superfast:subme=0 ultrafast:cabac=1:deblock=0,0 ultrafast").split()
PROFILE = os.environ.get("BENCH_PROFILE", "auto")
CLIP_NAME = "greenscreen-1080p30-v1.mp4"


def check_settings():
    if QUALITY_SECONDS < 1:
        bench.fail("BENCH_QUALITY_SECONDS must be a positive whole number")
    if X264_PRESET and X264_PRESET not in "ultrafast superfast veryfast faster fast medium".split():
        bench.fail("BENCH_X264_PRESET must be one of ultrafast superfast veryfast faster fast medium")
    for combination in COMBINATIONS:
        if combination not in ("keyed", "room", "avatar"):
            bench.fail(f"unknown combination '{combination}' in BENCH_COMBINATIONS (keyed, room, avatar)")


def settings_text():
    return f" BENCH_X264_PRESET={X264_PRESET}" if X264_PRESET else ""


# The camera: 10 s of 1080p30 H.264 at 8 Mb/s (a camera's stream) with a 330 Hz tone, of a
# person-like figure (soft-edged head and shoulders, shaded skin, a striped shirt) swaying in
# front of an unevenly lit green screen (a slowly turning three-green gradient, darker towards
# the corners), with temporal noise: the keyer, the encoder and the decoder get real work.
PERSON = ("geq=r='if(lt(Y,420),225-30*(X-380)/150,50+15*sin(X/9)+10*sin(Y/23))'"
          ":g='if(lt(Y,420),170-25*(X-380)/150,58+12*sin(X/9))'"
          ":b='if(lt(Y,420),140-20*(X-380)/150,120+25*sin(X/9)+10*sin(Y/23))'"
          ":a='255*(lt(hypot((X-380)/140,(Y-220)/180),1)+gt(Y,380)*lt(abs(X-380),110)*lt(Y,460)"
          "+gt(Y,440)*lt(abs(X-380),min(150+(Y-440)*2.2,370)))',gblur=sigma=3:planes=8")
SCREEN = ("gradients=s=1920x1080:r=30:c0=0x2E9E44:c1=0x1B7A30:c2=0x3FB455:n=3:x0=200:y0=0:x1=1700:y1=1080"
          ":speed=0.002:seed=7,vignette=angle=PI/4.5")
SWAY = ("[0:v][1:v]overlay=x='580+260*sin(2*PI*t/6)':y='120+18*sin(2*PI*t/2.3)':shortest=1,"
        "noise=alls=5:allf=t+u,format=yuv420p[v]")


def camera_clip(b):
    """Made with ffmpeg once and kept in .build-bench/bench-media (never committed)."""
    folder = os.path.join(bench.ROOT, ".build-bench/bench-media")
    clip = os.path.join(folder, CLIP_NAME)
    if not os.path.exists(clip):
        os.makedirs(folder, exist_ok=True)
        bench.log("part 4: making the green-screen camera clip (once, kept in .build-bench/bench-media; 1-4 minutes)")
        person, partial = os.path.join(b.folder, "person.png"), os.path.join(folder, ".partial-" + CLIP_NAME)
        ffmpeg = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"]
        subprocess.run(ffmpeg + ["-f", "lavfi", "-i", "color=c=black:s=760x1000,format=rgba", "-frames:v", "1",
                                 "-vf", PERSON, person], check=True)
        subprocess.run(ffmpeg + ["-f", "lavfi", "-i", SCREEN, "-loop", "1", "-framerate", "30", "-i", person,
                                 "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=48000", "-filter_complex", SWAY,
                                 "-map", "[v]", "-map", "2:a", "-t", "10", "-c:v", "libx264", "-preset", "veryfast",
                                 "-b:v", "8M", "-maxrate", "8M", "-bufsize", "16M", "-g", "60", "-c:a", "aac",
                                 "-b:a", "128k", "-f", "mp4", partial], check=True)
        os.rename(partial, clip)
    os.makedirs(os.path.join(b.project, "media"), exist_ok=True)
    shutil.copy(clip, os.path.join(b.project, "media/greenscreen.mp4"))


SEED = """title: Seed combinations
sources:
  camera: {{kind: file, path: ../media/greenscreen.mp4, loop: true}}
overlays:
  keyed:
    kind: virtual-background
    person: camera
    background: {{image: ../assets/studio.png}}
    key: {{color: "#2E9E44", similarity: 0.12, blend: 0.06, spill: 0.2}}   # the clip's screen colour
    placement: {{position: bottom, scale: 0.9, margin: 0}}
  room: {{kind: real-scene, camera: camera, auto_lighting: true}}
  avatar: {{kind: scene-avatar, scene: camera, avatar: {{image: ../assets/avatar.png}},
           placement: {{position: bottom-right, scale: 0.3, margin: 32}}}}
active: {combination}
audio: camera
layers:
  - {{kind: image, image: ../assets/logo.png, position: top-right, margin: 32, scale: 0.1, opacity: 0.9}}
  - {{kind: text, text: "{{title}}", size: 44, color: "#FFFFFF", position: bottom-left, margin: 48,
     box: {{color: "#C62828", opacity: 0.85, padding: 16}}}}
quality: {quality}
destinations:
  landscape: {{kind: record, path: ../out/{name}-16x9.mkv}}
"""
VERTICAL = """  vertical:
    kind: record
    path: ../out/{name}-9x16.mkv
    quality: {quality}
    canvas: {{aspect: "9:16", focus: 0.5}}
"""


def seed_pipeline(b, name, combination, video=None, vertical=True):
    """The seed combination on the camera clip, with a logo and a text layer (the title only: no
    clock, so that onair's and ffmpeg's pictures can be compared), at 1080p30 (with `video`
    settings over the preset's), plus the 9:16 crop at 1080x1920 when `vertical`."""
    def quality(preset):
        return f"{{extends: {preset}, video: {{{video}}}}}" if video else preset
    text = SEED.format(combination=combination, quality=quality("1080p30"), name=name)
    if vertical:
        text += VERTICAL.format(name=name, quality=quality("vertical-1080"))
    b.pipeline(name, text)


def two_renditions(b, name):
    return [(b.out(f"{name}-16x9.mkv"), 1920, 1080), (b.out(f"{name}-9x16.mkv"), 1080, 1920)]


def profile_shares(data):
    """Where perf's samples went, by what the code does: encode = libx264; decode = libavcodec
    (H.264 decoding and the AAC encoder); compositing = libavfilter, libswscale and onair's
    kernels (fk_*); kernel = the operating system."""
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "-q", "--sort", "dso,sym"],
                            capture_output=True, text=True).stdout
    total = dict.fromkeys(("encode", "decode", "compositing", "kernel", "other"), 0.0)
    for line in report.splitlines():
        fields = line.split()
        if len(fields) < 2 or not fields[0].endswith("%"):
            continue
        dso, symbol = fields[1], fields[3] if len(fields) > 3 else ""
        bucket = ("encode" if dso.startswith("libx264") else "decode" if dso.startswith("libavcodec")
                  else "compositing" if dso.startswith(("libavfilter", "libswscale")) or symbol.startswith("fk_")
                  else "kernel" if "kernel" in dso else "other")
        total[bucket] += float(fields[0].rstrip("%"))
    return " · ".join(f"{name} {share:.0f}%" for name, share in total.items())


def can_profile(b):
    if PROFILE != "auto":
        return PROFILE == "1"
    return shutil.which("perf") is not None and subprocess.run(
        ["perf", "record", "-q", "-e", "cpu-clock", "-o", os.path.join(b.folder, "perf-probe.data"), "true"],
        capture_output=True).returncode == 0


def part4(b):
    runs, seconds = b.runs, b.duration
    bench.log(f"part 4: seed combinations ({' '.join(COMBINATIONS)}) from a 1080p30 camera, 1080p30 + 1080x1920, "
              f"{seconds}s, no pacing, {runs} run(s) each")
    camera_clip(b)
    results = {}
    for combination in COMBINATIONS:
        name = f"seed-{combination}"
        seed_pipeline(b, name, combination, f"preset: {X264_PRESET}" if X264_PRESET else None)
        for run in range(1, runs + 1):
            counts = {}
            for tool in ("onair", "ffmpeg") if run % 2 else ("ffmpeg", "onair"):
                b.clear_out(name + "-")
                load = bench.load().split()[0]
                bench.log(f"part 4, {combination}, run {run}/{runs}: {tool} (load average {load})")
                label = f"part 4, {combination}: {tool} run {run}"
                timing = b.timed(label, b.command(tool, name, paced=False))
                counts[tool] = b.check_outputs(label, two_renditions(b, name))
                results.setdefault((combination, tool), []).append((timing, load, counts[tool]))
                bench.log(f"  {tool}: {timing.wall:.2f}s wall ({seconds / timing.wall:.2f}x real time), {timing.cpu:.2f}s CPU "
                          f"({timing.sys:.2f}s system), {bench.mib(timing.rss_kib)} peak")
            b.same_counts(f"part 4, {combination}, run {run}", counts["onair"], counts["ffmpeg"])
    shares = {}
    if can_profile(b):
        for combination in COMBINATIONS:
            bench.log(f"part 4, {combination}: one more onair run under perf")
            b.clear_out(f"seed-{combination}-")
            data = os.path.join(b.folder, f"p4-{combination}.perf")
            b.timed(f"part 4, {combination}: the profiled run", ["perf", "record", "-q", "-e", "cpu-clock", "-F", "499",
                                                               "-o", data, "--", *b.command("onair", f"seed-{combination}", paced=False)])
            shares[combination] = profile_shares(data)
    quality = {}
    for combination in COMBINATIONS:
        # onair's 16:9 picture against ffmpeg's running the printed command (libavfilter's
        # chromakey + despill at full size, normalize), both at 40 Mb/s so the encoder's losses
        # do not hide the compositing's.
        name = f"seedq-{combination}"
        seed_pipeline(b, name, combination, "bitrate: 40000k, max_bitrate: 40000k, buffer: 80000k", vertical=False)
        bench.log(f"part 4, {combination}: picture quality, {QUALITY_SECONDS}s at 40 Mb/s, onair then ffmpeg")
        for tool in ("onair", "ffmpeg"):
            b.clear_out(name + "-16x9")
            b.timed(f"part 4, {combination}: {tool}'s quality run", b.command(tool, name, QUALITY_SECONDS, paced=False))
            if os.path.exists(b.out(f"{name}-16x9.mkv")):
                os.replace(b.out(f"{name}-16x9.mkv"), b.out(f"{name}-{tool}.mkv"))
        quality[combination] = bench.ssim(b.out(f"{name}-onair.mkv"), b.out(f"{name}-ffmpeg.mkv"), b.folder)
        if quality[combination][0] < QUALITY_SECONDS * 30 - 2:
            b.problem(f"part 4, {combination}: the quality comparison saw {quality[combination][0]} frames")
        bench.log(f"  SSIM {quality[combination][1]:.4f} (lowest frame {quality[combination][2]:.4f})")
    print("4. the seed combinations from a live 1080p30 green-screen camera (a looped 10 s H.264 clip at 8 Mb/s")
    print("   that the benchmark makes), with logo and text layers: 1080p30 + a 9:16 crop at 1080x1920, two .mkv")
    print(f"   recordings, {seconds}s of media, no pacing, median of {runs} run(s). speed = media seconds / wall seconds")
    print("   (1.00x = real time; aim for onair >= 1.5x); sys = the share of CPU spent in the kernel (aim <= 5 %)")
    print()
    rows, medians = [], {}
    for (combination, tool), rs in results.items():
        wall, cpu = bench.median(r[0].wall for r in rs), bench.median(r[0].cpu for r in rs)
        sys_share = 100 * bench.median(r[0].sys for r in rs) / cpu
        medians[combination, tool] = (seconds / wall, cpu, sys_share)
        rows.append([combination if tool == "onair" else "", tool, f"{seconds / wall:.2f}x", f"{seconds * 30 / wall:.1f}",
                     f"{wall:.2f}", f"{cpu:.2f}", f"{cpu / wall:.2f}", f"{sys_share:.1f}%",
                     bench.mib(bench.median(r[0].rss_kib for r in rs)),
                     " ".join(f"{c[0][0]}+{c[1][0]}/{c[0][1]}+{c[1][1]}" for _, _, c in rs)])
    bench.table(["", "", "speed", "frames/s", "wall s", "CPU s", "CPU/wall", "sys", "peak RSS",
                 "|video frames 16:9+9:16 / audio packets 16:9+9:16, each run"], rows, left=2)
    print()
    for combination in COMBINATIONS:
        side = {tool: results[combination, tool] for tool in ("onair", "ffmpeg")}
        print(f"   {combination}, each run:  " + "  |  ".join(
            f"{tool} wall {' '.join(f'{r[0].wall:.2f}' for r in rs)} s, CPU {' '.join(f'{r[0].cpu:.2f}' for r in rs)} s"
            for tool, rs in side.items()) + "  |  load average at each start: " +
            ", ".join(f"{tool} {' '.join(r[1] for r in rs)}" for tool, rs in side.items()))
    print()
    if shares:
        print("   where onair's CPU goes (perf, cpu-clock samples of one more run each; compositing = libavfilter,")
        print("   libswscale and onair's kernels; decode = libavcodec, H.264 decoding and the AAC encoder):")
        for combination in COMBINATIONS:
            print(f"   {combination:<8} {shares[combination]}")
    else:
        print("   where onair's CPU goes: not measured (BENCH_PROFILE=0, or perf cannot sample here)")
    print()
    print("   picture quality: SSIM (FFmpeg's ssim filter, all planes) of onair's 16:9 picture against ffmpeg's running")
    print("   the printed command, which keys with libavfilter's chromakey + despill at the camera's full size and")
    print(f"   lights with normalize; both recorded at 40 Mb/s, first {QUALITY_SECONDS}s (aim for keyed: >= 0.98):")
    for combination in COMBINATIONS:
        frames, mean, lowest = quality[combination]
        print(f"   {combination:<8} SSIM {mean:.4f} (lowest frame {lowest:.4f}, {frames} frames)")
    print()
    for combination in COMBINATIONS:
        (os_, oc, osys), (fs, fc, _) = medians[combination, "onair"], medians[combination, "ffmpeg"]
        b.ratios.append(f"part 4, {combination}: onair {os_:.2f}x  real time (aim >= 1.5x), ffmpeg {fs:.2f}x; onair / ffmpeg "
                        f"speed {os_ / fs:.2f}x, CPU {oc / fc:.2f}x; onair sys {osys:.1f}%")
        if combination in shares:
            b.ratios.append(f"        onair's CPU: {shares[combination]}")
        b.ratios.append(f"        SSIM against ffmpeg's picture: {quality[combination][1]:.4f} (lowest frame {quality[combination][2]:.4f})")


def part5(b):
    """Each combination recorded once as a reference at 60 Mb/s (QUALITY_SECONDS), then with each
    setting of ENCODERS at the presets' bitrates, no pacing: speed and CPU, and the SSIM of both
    renditions against the reference. The reference's own losses are the same for every setting,
    so the differences are the encoder's."""
    seconds = b.duration
    bench.log(f"part 5: x264 settings ({' '.join(ENCODERS)}) on the seed combinations, {seconds}s each, no pacing")
    camera_clip(b)
    high = 'bitrate: 60000k, max_bitrate: 60000k, buffer: 120000k, level: "5.1", profile: high, preset: ultrafast'
    rows = []
    for combination in COMBINATIONS:
        reference = f"ref-{combination}"
        seed_pipeline(b, reference, combination, high)
        bench.log(f"part 5, {combination}: the reference, {QUALITY_SECONDS}s at 60 Mb/s")
        b.timed(f"part 5, {combination}: the reference run", b.command("onair", reference, QUALITY_SECONDS, paced=False))
        for index, encoder in enumerate(ENCODERS):
            preset, _, params = encoder.partition(":")
            name = f"enc{index}-{combination}"
            seed_pipeline(b, name, combination, f"preset: {preset}" + (f', x264_params: "{params}"' if params else ""))
            bench.log(f"part 5, {combination}: {encoder} (load average {bench.load().split()[0]})")
            timing = b.timed(f"part 5, {combination}: {encoder}", b.command("onair", name, paced=False))
            compared = [bench.ssim(b.out(f"{name}-{aspect}.mkv"), b.out(f"{reference}-{aspect}.mkv"), b.folder)
                        for aspect in ("16x9", "9x16")]
            if min(c[0] for c in compared) < QUALITY_SECONDS * 30 - 2:
                b.problem(f"part 5, {combination}, {encoder}: SSIM compared {compared[0][0]} and {compared[1][0]} frames")
            rows.append([combination if index == 0 else "", encoder, f"{seconds / timing.wall:.2f}x", f"{timing.cpu:.2f}",
                         f"{compared[0][1]:.4f}", f"{compared[1][1]:.4f}"])
            bench.log(f"  {timing.wall:.2f}s wall, {timing.cpu:.2f}s CPU, SSIM {compared[0][1]:.4f} / {compared[1][1]:.4f}")
    print("5. x264 settings: each seed combination as in part 4 (1080p30 + 1080x1920, the presets' 4500k each,")
    print(f"   {seconds}s, no pacing, one run each), and SSIM (all planes) of both pictures against the same")
    print(f"   combination recorded at 60 Mb/s, first {QUALITY_SECONDS}s. A setting is preset[:x264_params].")
    print()
    bench.table(["", "x264", "speed", "CPU s", "SSIM 16:9", "SSIM 9:16"], rows, left=2)
    print()
