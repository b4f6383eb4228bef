"""What the benchmarks in this folder share: the binary under test, processes stopped by PID,
timed commands with their CPU and peak memory, how the benchmark is scheduled, ports listened
on, medians and percentiles, nginx-rtmp on loopback, ffprobe's reading of what was recorded,
SSIM, and the header and tables of a report.

A benchmark imports it from its own folder:

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import benchlib as bench
"""

import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ONAIR = os.path.join(ROOT, ".build-bench/release/onair")
ONAIR = os.environ.get("ONAIR", DEFAULT_ONAIR)
RTMP_MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"
NGINX = "/usr/sbin/nginx"
KEEP = os.environ.get("BENCH_KEEP") == "1"

_prefix = "bench"


def set_name(name):
    """The prefix of progress lines: `[NAME 12:00:00] …`."""
    global _prefix
    _prefix = name


def log(text):
    """Progress, on stderr (results go to stdout)."""
    print(f"[{_prefix} {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def fail(text):
    log(f"error: {text}")
    sys.exit(1)


def env_int(name, default, least=1):
    """A whole-number setting from the environment, at least `least`."""
    text = os.environ.get(name, str(default))
    if not re.fullmatch(r"\d+", text) or int(text) < least:
        fail(f"{name} must be a whole number, at least {least}")
    return int(text)


# --- the binary ------------------------------------------------------------------------------

def ensure_onair():
    """Builds the release binary into .build-bench when it is the default one and missing."""
    if os.access(ONAIR, os.X_OK):
        return
    if ONAIR != DEFAULT_ONAIR:
        fail(f"{ONAIR} is not an executable")
    log("building onair (release) into .build-bench: a few minutes")
    build = subprocess.run(["swift", "build", "-c", "release", "--product", "onair", "--scratch-path", ".build-bench"],
                           cwd=ROOT, stdout=sys.stderr)
    if build.returncode != 0:
        fail("the build failed")


def commit():
    """The short commit of the tree the benchmark runs from."""
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def build_label():
    if ONAIR == DEFAULT_ONAIR:
        return f"onair {commit()} (release build)"
    return f"onair at {ONAIR}"


def ffmpeg_version():
    """The version the ffmpeg CLI says it is, for a report's header."""
    return subprocess.run(["ffmpeg", "-hide_banner", "-version"], capture_output=True, text=True).stdout.split()[2]


def require(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            fail(f"{tool} is missing")


# --- the machine and the report's header -----------------------------------------------------

def load():
    with open("/proc/loadavg") as loadavg:
        return " ".join(loadavg.read().split()[:3])


def machine():
    """`2 CPUs (AMD EPYC), 23.5 GiB memory, Linux 6.18`."""
    model = "unknown CPU"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as meminfo:
        kib = int(next(line for line in meminfo if line.startswith("MemTotal")).split()[1])
    uname = os.uname()
    return f"{os.cpu_count()} CPUs ({model}), {kib / 1048576:.1f} GiB memory, {uname.sysname} {uname.release}"


def now():
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def header(title, software=None, settings=None):
    """The first lines of every report: what, when, where, which build and settings."""
    print(f"{title}, {now()}")
    print(f"machine: {machine()}")
    print(f"software: {build_label()}" + (f", {software}" if software else ""))
    print(f"settings: {settings + '; ' if settings else ''}load average at start {load()}")
    print()


def table(headers, rows, indent=3, left=1):
    """Columns as wide as their widest cell; the first `left` left-aligned, the others
    right-aligned, but for a last header starting with '|': free text after the table."""
    rows = [["" if cell is None else str(cell) for cell in row] for row in rows]
    free = headers[-1].startswith("|")
    fixed = len(headers) - 1 if free else len(headers)
    widths = [max(len(str(headers[i])), *(len(row[i]) for row in rows)) for i in range(fixed)]

    def line(cells):
        parts = [cells[i].ljust(widths[i]) if i < left else cells[i].rjust(widths[i]) for i in range(fixed)]
        if free:
            parts.append(cells[fixed] if len(cells) > fixed else "")
        return " " * indent + "   ".join(parts).rstrip()
    print(line([str(h).lstrip("|") for h in headers]))
    for row in rows:
        print(line(row))


# --- numbers ---------------------------------------------------------------------------------

def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def percentile(values, p):
    """The p-th percentile (0-100), linear between the closest ranks."""
    values = sorted(values)
    if not values:
        return None
    rank = (len(values) - 1) * p / 100
    low, high = math.floor(rank), math.ceil(rank)
    return values[low] + (values[high] - values[low]) * (rank - low)


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, spec=".2f", none="—"):
    return none if value is None else format(value, spec)


def mib(kib):
    return f"{kib / 1024:.0f} MiB"


def timestamp(text):
    """An event's `ts` (`2026-11-26T09:44:01.123Z`) as seconds since the epoch."""
    return datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def events(path):
    """The JSON events of an `onair run --log-format json` log (other lines skipped)."""
    found = []
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith("{"):
                try:
                    found.append(json.loads(line))
                except ValueError:
                    pass
    return found


# --- processes, stopped by PID ---------------------------------------------------------------

@dataclass
class Timing:
    """What a timed command took: wall and CPU seconds (user + sys), peak RSS, exit status."""
    wall: float
    user: float
    sys: float
    rss_kib: int
    status: int

    @property
    def cpu(self):
        return self.user + self.sys


class Processes:
    """Every process a benchmark starts, stopped by its PID when it ends (also on Ctrl-C)."""

    def __init__(self):
        self.started = []
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))

    def start(self, arguments, log_path=None, cwd=None, env=None, group=False):
        """Starts a command, its output into `log_path` (or nowhere)."""
        output = open(log_path, "w") if log_path else subprocess.DEVNULL
        process = subprocess.Popen(arguments, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=group)
        process.started_at, process.group, process.timing = time.time(), group, None
        if log_path:
            output.close()
        self.started.append(process)
        return process

    def adopt(self, process):
        """A process started with pipes (a Popen of the caller's), stopped by PID with the others."""
        process.started_at, process.group, process.timing = time.time(), False, None
        self.started.append(process)
        return process

    def finished(self, process, block=False):
        """The command's Timing once it has ended (rusage from wait4: the process alone, or what
        it exec'd into), else None. Use this, not poll(), which would lose the rusage."""
        if getattr(process, "timing", None) is None:
            pid, status, usage = os.wait4(process.pid, 0 if block else os.WNOHANG)
            if not pid:
                return None
            process.returncode = os.waitstatus_to_exitcode(status)
            process.timing = Timing(time.time() - process.started_at, usage.ru_utime, usage.ru_stime, usage.ru_maxrss,
                                    process.returncode)
            if process in self.started:
                self.started.remove(process)
        return process.timing

    def wait(self, process, timeout=None):
        """Waits for a started command; its Timing. Past `timeout` seconds from its start it is
        killed (its status is then -9)."""
        deadline = None if timeout is None else process.started_at + timeout
        while (timing := self.finished(process)) is None:
            if deadline is not None and time.time() > deadline:
                log(f"pid {process.pid} ran past {timeout} s: killed")
                self.signal(process, signal.SIGKILL)
                return self.finished(process, block=True)
            time.sleep(0.02)
        return timing

    def timed(self, arguments, log_path=None, cwd=None, env=None, timeout=None):
        return self.wait(self.start(arguments, log_path, cwd, env), timeout)

    def signal(self, process, number):
        try:
            if process.group:
                os.killpg(process.pid, number)
            else:
                os.kill(process.pid, number)
        except ProcessLookupError:
            pass

    def stop(self, process, grace=5):
        """SIGTERM, then SIGKILL after `grace` seconds."""
        if process.poll() is None:
            self.signal(process, signal.SIGCONT)
            self.signal(process, signal.SIGTERM)
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.signal(process, signal.SIGKILL)
                process.wait()
        if process in self.started:
            self.started.remove(process)

    def stop_all(self):
        for process in list(reversed(self.started)):
            self.stop(process)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop_all()


def temporary_folder(prefix):
    return tempfile.mkdtemp(prefix=f"onair-{prefix}.")


def remove_folder(folder):
    if KEEP:
        log(f"kept {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)


def project(folder, pipelines=False):
    """A project in `folder`: copies of Presets/ and assets/ (and Pipelines/ if asked), an empty
    Pipelines/ otherwise, and out/ for recordings."""
    for name in ("Presets", "assets") + (("Pipelines",) if pipelines else ()):
        shutil.copytree(os.path.join(ROOT, name), os.path.join(folder, name))
    os.makedirs(os.path.join(folder, "Pipelines"), exist_ok=True)
    os.makedirs(os.path.join(folder, "out"), exist_ok=True)
    return folder


def write(path, text):
    with open(path, "w") as file:
        file.write(text)


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, host="127.0.0.1", timeout=10, alive=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex((host, port)) == 0:
                return True
        if alive is not None and alive.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def listening(port, process, timeout=60, udp=False):
    """Whether something listens on the loopback TCP `port` (or, `udp`, has bound the UDP port an
    SRT listener waits on) within `timeout` s while `process` runs, read from /proc/net: ffmpeg's
    `-listen 1` takes one connection only, so no probe may connect."""
    deadline = time.time() + timeout
    wanted = f"0100007F:{port:04X}"
    table_path, state = ("/proc/net/udp", "07") if udp else ("/proc/net/tcp", "0A")
    while time.time() < deadline and process.poll() is None:
        with open(table_path) as table:
            if any(line.split()[1] == wanted and line.split()[3] == state for line in list(table)[1:]):
                return True
        time.sleep(0.05)
    return False


def prioritise():
    """Schedules the benchmark (and so every process it starts) as BENCH_PRIORITY says: `rr`
    (the default as root: SCHED_RR priority 10, which builds sharing the machine can't starve),
    `nice` (-10) or `none`; how, for the report."""
    wanted = os.environ.get("BENCH_PRIORITY", "rr" if os.geteuid() == 0 else "none")
    if wanted == "rr":
        os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(10))
        return "SCHED_RR 10"
    if wanted == "nice":
        os.nice(-10)
        return "nice -10"
    return "normal"


# --- nginx-rtmp -------------------------------------------------------------------------------

NGINX_CONF = """load_module {module};
daemon off;
master_process {master};
worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log info;
events {{ worker_connections 256; }}
rtmp {{
  server {{
    listen {host}:{port};
    chunk_size 4096;
    application live {{ live on; {record} }}
  }}
}}
"""


def have_nginx():
    return os.access(NGINX, os.X_OK) and os.path.exists(RTMP_MODULE)


class Nginx:
    """nginx with the RTMP module in its own folder, recording what it receives. Single-process
    by default, so that SIGSTOP freezes all of it. `prefix` runs it elsewhere (`ip netns exec NS`)."""

    def __init__(self, processes, folder, host="127.0.0.1", port=None, record=True, single=True, prefix=()):
        self.processes, self.folder, self.host = processes, folder, host
        self.port = port or free_port()
        for sub in ("conf", "logs", "rec"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        os.chmod(folder, 0o755)
        os.chmod(os.path.join(folder, "rec"), 0o777)   # workers may run unprivileged
        rec = f"record all; record_path {folder}/rec; record_unique on;" if record else ""
        write(os.path.join(folder, "conf/nginx.conf"),
              NGINX_CONF.format(module=RTMP_MODULE, master="off" if single else "on", host=host, port=self.port, record=rec))
        self.process = processes.start([*prefix, NGINX, "-p", folder, "-c", "conf/nginx.conf", "-e", "logs/error.log"],
                                       os.path.join(folder, "logs/stdout.log"))
        if not prefix and not wait_for_port(self.port, host, alive=self.process):
            fail(f"nginx did not start: {self.error_log()[-300:]}")

    def url(self, stream):
        return f"rtmp://{self.host}:{self.port}/live/{stream}"

    def error_log(self):
        try:
            with open(os.path.join(self.folder, "logs/error.log"), errors="replace") as text:
                return text.read()
        except OSError:
            return ""

    def recordings(self, stream):
        """What was recorded for `stream`, oldest first (a reconnection starts a new file)."""
        folder = os.path.join(self.folder, "rec")
        return sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.startswith(stream + "-"))

    def freeze(self):
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self):
        os.kill(self.process.pid, signal.SIGCONT)

    def stop(self):
        self.processes.stop(self.process)


# --- what was recorded: ffprobe -------------------------------------------------------------

@dataclass
class Probe:
    """A recording as ffprobe reads it: picture size, decoded video frames, audio packets, lines
    ffprobe complained with while decoding, and the largest distance in seconds between the
    audio and video timestamps reached in file order (how badly the streams are interleaved)."""
    width: int = 0
    height: int = 0
    frames: int = 0
    audio_packets: int = 0
    errors: int = 1
    gap: float = 0.0

    def add(self, other):
        """Two files of one destination (a reconnection), counted together."""
        return Probe(other.width or self.width, other.height or self.height, self.frames + other.frames,
                     self.audio_packets + other.audio_packets, self.errors + other.errors, max(self.gap, other.gap))

    def describe(self):
        return (f"{self.width}x{self.height}, {self.frames} video frames, {self.audio_packets} audio packets, "
                f"{self.errors} decode error line(s), audio/video up to {self.gap:.2f}s apart")


def _ffprobe(*arguments):
    return subprocess.run(["ffprobe", "-v", "error", *arguments], capture_output=True, text=True)


def probe(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return Probe()
    video = _ffprobe("-count_frames", "-select_streams", "v:0", "-show_entries", "stream=width,height,nb_read_frames",
                     "-of", "csv=p=0", path)
    fields = (video.stdout.splitlines() or [""])[0].split(",")
    width, height, frames = (int(v) if v.isdigit() else 0 for v in (fields + ["", "", ""])[:3])
    errors = len([line for line in video.stderr.splitlines() if line.strip()])
    audio = _ffprobe("-count_packets", "-select_streams", "a:0", "-show_entries", "stream=nb_read_packets",
                     "-of", "csv=p=0", path).stdout.split()
    packets = int(audio[0]) if audio and audio[0].isdigit() else 0
    last, gap = {}, 0.0
    for line in _ffprobe("-show_entries", "packet=stream_index,pts_time", "-of", "csv=p=0", path).stdout.splitlines():
        index, _, pts = line.partition(",")
        if pts not in ("", "N/A"):
            last[index] = float(pts.split(",")[0])
            if "0" in last and "1" in last:
                gap = max(gap, abs(last["0"] - last["1"]))
    return Probe(width, height, frames, packets, errors, gap)


def probe_all(paths):
    total = Probe(errors=0)
    for path in paths:
        total = total.add(probe(path))
    return total


def duration(path):
    """The container's duration as ffprobe reads it (a string), or '' when unreadable."""
    return _ffprobe("-show_entries", "format=duration", "-of", "csv=p=0", path).stdout.strip()


def frame_tags(path, filters, tags):
    """[(pts seconds, {tag: float})] of every picture of `path` through lavfi `filters`
    (e.g. signalstats), with the frame tags named (`lavfi.signalstats.VAVG`)."""
    out = _ffprobe("-f", "lavfi", f"movie={path},{filters}", "-show_entries",
                   "frame=pts_time:frame_tags=" + ",".join(tags), "-of", "json").stdout
    pictures = []
    for frame in json.loads(out or "{}").get("frames", []):
        try:
            pictures.append((float(frame["pts_time"]), {tag: float(frame["tags"][tag]) for tag in tags}))
        except (KeyError, ValueError):
            pass
    return sorted(pictures, key=lambda picture: picture[0])


def ssim(a, b, folder):
    """(frames compared, mean, lowest) of FFmpeg's ssim filter (all planes), A against B frame
    by frame as far as the shorter goes."""
    stats = tempfile.NamedTemporaryFile(dir=folder, prefix="ssim.", delete=False).name
    subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-i", a, "-i", b, "-lavfi",
                    f"[0:v][1:v]ssim=stats_file={stats}:shortest=1:repeatlast=0", "-f", "null", "-"],
                   capture_output=True)
    values = []
    with open(stats) as lines:
        for line in lines:
            found = re.search(r"All:([0-9.]+)", line)
            if found:
                values.append(float(found[1]))
    os.unlink(stats)
    return (len(values), sum(values) / len(values), min(values)) if values else (0, 0.0, 0.0)


# --- onair against the ffmpeg command it prints ---------------------------------------------

class Workbench:
    """A project in a temporary folder where onair and the ffmpeg command it prints run the same
    pipelines for `duration` media seconds, timed, their outputs checked; what went wrong is
    collected in `problems`."""

    def __init__(self, folder, processes, duration, timeout):
        self.folder, self.processes, self.duration, self.timeout = folder, processes, duration, timeout
        self.project = project(os.path.join(folder, "project"))
        self.problems = []

    def problem(self, text):
        self.problems.append(text)
        log(f"PROBLEM: {text}")

    def pipeline(self, name, text):
        write(os.path.join(self.project, "Pipelines", name + ".yaml"), text)
        check = subprocess.run([ONAIR, "validate", "--project", self.project, name], capture_output=True, text=True)
        if check.returncode != 0:
            fail(f"Pipelines/{name}.yaml does not validate: {check.stdout}{check.stderr}")

    def ffmpeg_command(self, name, seconds=None, paced=True):
        plan = subprocess.run([ONAIR, "plan", name, "--format", "ffmpeg", "--duration", f"{seconds or self.duration}s"]
                              + ([] if paced else ["--no-pacing"]), cwd=self.project, capture_output=True, text=True)
        if plan.returncode != 0:
            fail(f"onair plan {name} failed: {plan.stderr}")
        return plan.stdout.strip()

    def command(self, tool, name, seconds=None, paced=True, extra=()):
        """onair running pipeline NAME, or the ffmpeg command it prints (through bash: it expands
        ${VARIABLES}; exec, so that the timing is ffmpeg's alone)."""
        if tool == "onair":
            return [ONAIR, "run", "--project", self.project, name, "--duration", f"{seconds or self.duration}s",
                    *([] if paced else ["--no-pacing"]), *extra]
        return ["bash", "-c", "exec " + self.ffmpeg_command(name, seconds, paced)]

    def timed(self, label, arguments):
        timing = self.processes.timed(arguments, self.log_path(label), cwd=self.project, timeout=self.timeout)
        if timing.status != 0:
            self.problem(f"{label} exited with status {timing.status} (log: {self.log_tail(label)})")
        return timing

    def log_path(self, label):
        return os.path.join(self.folder, re.sub(r"[^\w.-]+", "-", label) + ".log")

    def log_tail(self, label, lines=2):
        with open(self.log_path(label), errors="replace") as text:
            return " ".join(text.read().splitlines()[-lines:])

    def out(self, name):
        return os.path.join(self.project, "out", name)

    def clear_out(self, prefix):
        for name in os.listdir(os.path.join(self.project, "out")):
            if name.startswith(prefix):
                os.unlink(self.out(name))

    def complete(self, probe, width=None, height=None):
        """Whether a recording decodes, has the size and (nearly) all the run's media, interleaved."""
        return ((width is None or (probe.errors == 0 and (probe.width, probe.height) == (width, height)))
                and probe.frames >= self.duration * 30 - 30 and probe.audio_packets >= self.duration * 48000 // 1024 - 50
                and probe.gap <= 2)

    def check_outputs(self, label, outputs):
        """Probes each (file, width, height); (frames, audio packets) of each."""
        counts = []
        for path, width, height in outputs:
            found = probe(path)
            if not self.complete(found, width, height):
                self.problem(f"{label}: {os.path.basename(path)} is {found.describe()}")
            counts.append((found.frames, found.audio_packets))
        return counts

    def same_counts(self, label, onair, ffmpeg):
        """onair's and ffmpeg's outputs agree within 2 video frames and 3 audio packets."""
        for (of, oa), (ff, fa) in zip(onair, ffmpeg):
            if abs(of - ff) > 2:
                self.problem(f"{label}: frame counts differ by more than 2: onair {of}, ffmpeg {ff}")
            if abs(oa - fa) > 3:
                self.problem(f"{label}: audio packet counts differ by more than 3: onair {oa}, ffmpeg {fa}")
