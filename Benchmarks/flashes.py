"""The instrument of Benchmarks/latency: a camera that flashes, a reader that notes when each
flash arrives, both in this process on one monotonic clock, and the reading of onair's latency
trace (ONAIR_LATENCY_TRACE) that follows a picture, and a flash, through onair's stages.
"""

import json
import math
import os
import subprocess
import threading
import time

import benchlib as bench

# Flashes skipped at a session's start; the camera's pictures, a flash every 2 s lasting two
# pictures; the reader's small grey pictures; onair's stages as its trace names them.
WARMUP = 2
WIDTH, HEIGHT, FPS = 640, 360, 30
FLASH_EVERY = 2 * FPS
FLASH_FRAMES = 2
READ_W, READ_H = 160, 90
# Options of the camera's MPEG-TS muxer (the -srt paths), e.g. `-pes_payload_size 0`: by default
# it gathers about 2930 bytes of sound into each PES packet (a quarter of a second at 96 kb/s).
CAMERA_MPEGTS = os.environ.get("BENCH_CAMERA_MPEGTS", "").split()
STAGES = ["demuxed", "decoded", "composed", "encoded", "written"]


def camera_pictures():
    """Thirty dark pictures with a grey bar that moves (so the encoder has work), and a white
    one, as yuv420p bytes."""
    chroma = bytes([128]) * (WIDTH * HEIGHT // 2)
    pictures = []
    for step in range(FPS):
        x = step * (WIDTH - 64) // FPS
        row = bytes([40]) * x + bytes([110]) * 64 + bytes([40]) * (WIDTH - 64 - x)
        pictures.append(row * HEIGHT + chroma)
    return pictures, bytes([235]) * (WIDTH * HEIGHT) + chroma


class Camera:
    """Writes pictures into an encoding ffmpeg at 30 fps on the monotonic clock; notes when
    each flash was generated, and which frame it is (frame n is stamped n/30 s)."""

    def __init__(self, processes, url, folder, log_name="camera.log"):
        self.flashes, self.flash_frames, self.stopping = [], [], threading.Event()
        muxer = "mpegts" if url.startswith("srt:") else "flv"
        self.process = processes.adopt(subprocess.Popen(
            ["ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p",
             "-s", f"{WIDTH}x{HEIGHT}", "-framerate", str(FPS), "-i", "pipe:0",
             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
             "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", str(FPS), "-b:v", "1500k",
             # -shortest: the tone never ends, so without it the camera kept streaming sound after
             # its pictures stopped, was killed, and never hung up (an SRT listener then waits for
             # its idle timeout before taking a caller again).
             "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest"] + (CAMERA_MPEGTS if muxer == "mpegts" else [])
            + ["-f", muxer, url],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=open(os.path.join(folder, log_name), "w")))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        pictures, white = camera_pictures()
        start = time.monotonic()
        frame = 0
        while not self.stopping.is_set():
            delay = start + frame / FPS - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            flash = frame % FLASH_EVERY < FLASH_FRAMES and frame >= FPS
            picture = white if flash else pictures[frame % FPS]
            if flash and frame % FLASH_EVERY == 0:
                self.flashes.append(time.monotonic())
                self.flash_frames.append(frame)
            try:
                self.process.stdin.write(picture)
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            frame += 1

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=2)
        try:
            self.process.stdin.close()
        except OSError:
            pass


class Reader:
    """Decodes what arrives at `url` into small grey pictures; notes when each flash arrived."""

    def __init__(self, processes, url, folder):
        self.arrivals = []
        self.process = processes.adopt(subprocess.Popen(
            ["ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay",
             "-i", url, "-map", "0:v", "-vf", f"scale={READ_W}:{READ_H},format=gray", "-fps_mode", "passthrough",
             "-f", "rawvideo", "-flush_packets", "1", "pipe:1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=open(os.path.join(folder, "reader.log"), "w")))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        size, bright = READ_W * READ_H, False
        pipe = self.process.stdout.fileno()
        while True:
            picture = bytearray()
            while len(picture) < size:
                chunk = os.read(pipe, size - len(picture))
                if not chunk:
                    return
                picture += chunk
            arrived = time.monotonic()
            white = sum(picture) / size > 140
            if white and not bright:
                self.arrivals.append(arrived)
            bright = white


def flash_arrivals(flashes, arrivals):
    """Each arrival against the last flash generated before it (flashes are 2 s apart, far more
    than any path's latency), the first WARMUP skipped: (the flash's index, arrived)."""
    found = []
    for arrived in arrivals:
        earlier = [generated for generated in flashes if generated < arrived]
        if earlier and arrived - earlier[-1] < FLASH_EVERY / FPS * 0.9 and len(earlier) - 1 >= WARMUP:
            found.append((len(earlier) - 1, arrived))
    return found


def latencies(flashes, arrivals):
    """Each flash's glass-to-glass time, ms (see flash_arrivals)."""
    return [(arrived - flashes[index]) * 1000 for index, arrived in flash_arrivals(flashes, arrivals)]


# --- onair's trace ------------------------------------------------------------------------------

def trace_entries(path):
    """The entries of onair's trace at `path`, one JSON object a line (a line that is not one,
    such as the last one cut short, is passed over); None when it can't be read."""
    try:
        with open(path) as lines:
            entries = []
            for line in lines:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    continue
            return entries
    except OSError:
        return None


def trace_stages(path, interleaved=True):
    """From onair's trace (ONAIR_LATENCY_TRACE): for the pictures every stage saw, the median
    time between one stage and the next (ms), and how many pictures that was. Stages are
    matched by frame (the `fps` filter moves a picture onto the frame grid). `released` is when
    the muxer could send the picture: libavformat interleaves by timestamp, so a picture waits
    until a packet of sound at or after its moment has been encoded (`interleaved`; with
    `latency: low` onair writes packets as they are encoded, and it is when it was written)."""
    entries = trace_entries(path)
    if entries is None:
        return None
    pictures, sound = {}, []
    for entry in entries:
        if entry["stage"] == "sound.encoded":
            sound.append((entry["pts"], entry["ns"]))
        else:
            pictures.setdefault(round(entry["pts"] * FPS / 1e6), {})[entry["stage"]] = entry["ns"]
    sound.sort()
    complete = [p for p in pictures.values() if all(stage in p for stage in STAGES)]
    for frame, picture in pictures.items():
        if picture in complete:
            later = [ns for pts, ns in sound if pts >= frame * 1e6 / FPS]
            if not interleaved:
                picture["released"] = picture["written"]
            else:
                picture["released"] = max(picture["written"], min(later)) if later else None
    complete = [p for p in complete if p.get("released")]
    if not complete:
        return None
    order = STAGES + ["released"]
    steps = {f"{a} → {b}": bench.median([(p[b] - p[a]) / 1e6 for p in complete]) for a, b in zip(order, order[1:])}
    steps["demuxed → released"] = bench.median([(p["released"] - p["demuxed"]) / 1e6 for p in complete])
    return steps, len(complete)


LEGS = ["camera → onair's read", "onair's read → written", "written → reader"]


def read_trace(path):
    """onair's trace as (input frame, demuxed ns) for pictures with their input timestamp, and
    written ns by frame on the run's timeline (as trace_stages matches stages); None without one."""
    entries = trace_entries(path)
    if entries is None:
        return None
    demuxed, written = [], {}
    for entry in entries:
        frame = round(entry["pts"] * FPS / 1e6)
        if entry["stage"] == "demuxed" and "src" in entry:
            demuxed.append((entry["src"], frame, entry["ns"]))
        elif entry["stage"] == "written":
            written.setdefault(frame, entry["ns"])
    return demuxed, written


def camera_frame(sources):
    """A function from an input timestamp (µs) to the camera's frame number. The camera stamps
    frame n at n/30 s, and its muxer moves every timestamp up by less than a frame (the AAC
    encoder's priming): the common fraction of a frame is that move (a circular mean)."""
    angles = [2 * math.pi * ((src * FPS / 1e6) % 1) for src in sources]
    phase = (math.atan2(sum(map(math.sin, angles)), sum(map(math.cos, angles))) / (2 * math.pi)) % 1
    return lambda src: round(src * FPS / 1e6 - phase)


def flash_legs(trace, camera, arrivals):
    """Each flash's way, ms: from the camera to onair's reading of its packet (the camera's
    encoder and muxer, the socket, libavformat's RTMP and FLV reading), through onair to the
    packet written, and from there to the reader (the socket, nginx-rtmp, the reader's demuxer
    and decoder). A flash whose first picture onair never wrote (dropped, or not traced) is
    counted apart: the reader then saw its second picture, a frame later. None without a trace."""
    read = read_trace(trace)
    if not read or not read[0]:
        return None
    demuxed, written = read
    frame_of = camera_frame([src for src, _, _ in demuxed])
    by_camera = {frame_of(src): (frame, ns) for src, frame, ns in demuxed}
    legs, unwritten = [], 0
    for index, arrived in flash_arrivals(camera.flashes, arrivals):
        frame, demuxed_ns = by_camera.get(camera.flash_frames[index], (None, None))
        if demuxed_ns is None or frame not in written:
            unwritten += 1
            continue
        legs.append([(demuxed_ns / 1e9 - camera.flashes[index]) * 1000, (written[frame] - demuxed_ns) / 1e6,
                     (arrived - written[frame] / 1e9) * 1000])
    return legs, unwritten
