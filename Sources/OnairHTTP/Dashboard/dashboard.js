// The onair dashboard: one page over the run's own API (same origin, no libraries).
// Status is polled every second and previews at most once a second, only while the page is
// visible (and a preview only while its tile is on screen); events arrive by SSE.
"use strict";

const $ = (selector, root = document) => root.querySelector(selector);
const tiles = new Map();        // destination name → {element, samples, url, visible}
const HISTORY = 60;             // bitrate samples per sparkline (one a second)
const MAX_EVENTS = 200;
let lastStatus = null;
let switching = false;

function api(path, options = {}) {
  return fetch(path, { credentials: "same-origin", cache: "no-store", ...options });
}

// ---------- formatting

function bitrate(bits) {
  if (!bits) return "0 kb/s";
  return bits >= 1e6 ? (bits / 1e6).toFixed(2) + " Mb/s" : Math.round(bits / 1e3) + " kb/s";
}

function duration(ms) {
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
  const two = (n) => String(n).padStart(2, "0");
  return (h ? h + ":" + two(m) : m) + ":" + two(s);
}

function stateLabel(destination) {
  switch (destination.state) {
    case "retrying": return `retrying · attempt ${destination.attempt}`;
    case "connecting": return destination.attempt > 1 ? `connecting · ${destination.attempt}` : "connecting";
    default: return destination.state;
  }
}

// ---------- status

async function refreshStatus() {
  try {
    const response = await api("/api/v1/status");
    if (!response.ok) throw new Error("HTTP " + response.status);
    render(await response.json());
  } catch (error) {
    $("#run-state").textContent = "unreachable";
    $("#run-state").dataset.state = "failed";
  }
}

function render(status) {
  lastStatus = status;
  document.title = `${status.pipeline} · onair`;
  $("#pipeline").textContent = status.pipeline;
  const runState = $("#run-state");
  runState.textContent = status.state;
  runState.dataset.state = status.state;
  $("#onair-dot").classList.toggle("live", status.state === "live" || status.state === "switching");
  $("#overlay-on-air").textContent = status.overlay || "–";
  $("#uptime").textContent = duration(status.elapsed_ms);
  const live = status.destinations.filter((d) => d.state === "live").length;
  $("#live-count").textContent = `${live}/${status.destinations.length} live`;
  renderOverlays(status);
  renderMixer(status.mixes || []);
  renderDestinations(status.destinations);
  renderRenditions(status.renditions);
  renderInputs(status.inputs, status.failover || []);
  renderMeters(status.loudness || []);
  document.body.dataset.ready = "true";
}

function renderOverlays(status) {
  const box = $("#overlays");
  const wanted = status.overlays.map((o) => o.name).join("\n");
  if (box.dataset.names !== wanted) {
    box.replaceChildren(...status.overlays.map((overlay) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.overlay = overlay.name;
      const number = document.createElement("span");
      number.className = "number";
      number.textContent = overlay.number;
      button.append(number, document.createTextNode(overlay.name));
      button.addEventListener("click", () => switchTo(overlay.name));
      return button;
    }));
    box.dataset.names = wanted;
  }
  for (const overlay of status.overlays) {
    const button = box.querySelector(`button[data-overlay="${CSS.escape(overlay.name)}"]`);
    button.classList.toggle("on-air", overlay.on_air);
    button.disabled = !overlay.available || overlay.on_air || switching;
    button.title = overlay.available ? (overlay.on_air ? "on air" : `put ${overlay.name} on air`) : (overlay.reason || "unavailable");
  }
}

async function switchTo(name) {
  const message = $("#overlay-message");
  switching = true;
  const button = $(`#overlays button[data-overlay="${CSS.escape(name)}"]`);
  button?.classList.add("pending");
  message.className = "message";
  message.textContent = `switching to ${name}…`;
  try {
    const response = await api("/api/v1/overlay", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }),
    });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || "HTTP " + response.status);
    message.textContent = `on air: ${body.overlay}`;
    switching = false;
    render(body);
  } catch (error) {
    message.className = "message error";
    message.textContent = error.message;
  } finally {
    switching = false;
    button?.classList.remove("pending");
  }
}

// ---------- mixer: a strip per mix, a level and a mute per member

function renderMixer(mixes) {
  const panel = $("#mixer");
  panel.hidden = mixes.length === 0;
  const box = $("#mixes");
  const wanted = mixes.map((m) => m.name + ":" + m.members.map((s) => s.name).join(",")).join("\n");
  if (box.dataset.names !== wanted) {
    box.replaceChildren(...mixes.map((mix) => {
      const strip = document.createElement("fieldset");
      strip.className = "strip";
      strip.dataset.mix = mix.name;
      const legend = document.createElement("legend");
      legend.textContent = mix.name;
      strip.append(legend, ...mix.members.map((member) => makeFader(mix.name, member.name)));
      return strip;
    }));
    box.dataset.names = wanted;
  }
  for (const mix of mixes) {
    for (const member of mix.members) {
      const fader = box.querySelector(`[data-mix="${CSS.escape(mix.name)}"] [data-source="${CSS.escape(member.name)}"]`);
      // A fader being moved keeps the operator's value until it is let go.
      if (fader.dataset.busy !== "true") {
        fader.querySelector("input[type=range]").value = member.gain_db;
        fader.querySelector("input[type=number]").value = member.gain_db;
      }
      const mute = fader.querySelector("button");
      mute.classList.toggle("muted", member.muted);
      mute.setAttribute("aria-pressed", String(member.muted));
    }
  }
}

function makeFader(mix, source) {
  const fader = document.createElement("div");
  fader.className = "fader";
  fader.dataset.source = source;
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = source;
  const slider = Object.assign(document.createElement("input"), { type: "range", min: -60, max: 20, step: 0.5, title: `${source} in ${mix}, dB` });
  const number = Object.assign(document.createElement("input"), { type: "number", min: -60, max: 20, step: 0.5, title: `${source} in ${mix}, dB` });
  const mute = Object.assign(document.createElement("button"), { type: "button", textContent: "mute", title: `mute ${source} in ${mix} only` });
  slider.addEventListener("input", () => { fader.dataset.busy = "true"; number.value = slider.value; });
  slider.addEventListener("change", () => { fader.dataset.busy = "false"; setGain(mix, source, Number(slider.value)); });
  number.addEventListener("change", () => setGain(mix, source, Number(number.value)));
  mute.addEventListener("click", () => mixCall(`/api/v1/mixes/${encodeURIComponent(mix)}/mute`,
    { source, muted: !mute.classList.contains("muted") }, `${source} in ${mix}`));
  fader.append(name, slider, number, mute);
  return fader;
}

function setGain(mix, source, gain) {
  return mixCall(`/api/v1/mixes/${encodeURIComponent(mix)}/gain`, { source, gain_db: gain }, `${source} in ${mix}: ${gain} dB`);
}

async function mixCall(path, body, what) {
  const message = $("#mixer-message");
  message.className = "message";
  try {
    const response = await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || "HTTP " + response.status);
    message.textContent = what;
    render(answer);
  } catch (error) {
    message.className = "message error";
    message.textContent = error.message;
  }
}

function renderDestinations(destinations) {
  const container = $("#destinations");
  for (const destination of destinations) {
    let tile = tiles.get(destination.name);
    if (!tile) {
      tile = makeTile(destination);
      tiles.set(destination.name, tile);
      container.append(tile.element);
    }
    const element = tile.element;
    element.dataset.state = destination.state;
    const badge = $(".state", element);
    badge.dataset.state = destination.state;
    badge.textContent = stateLabel(destination);
    tile.samples.push(destination.stats.bits_per_second);
    if (tile.samples.length > HISTORY) tile.samples.shift();
    drawSparkline(element, tile.samples);
    const stats = destination.stats;
    $(".bitrate", element).textContent = bitrate(stats.bits_per_second);
    const dropped = $(".dropped", element);
    dropped.textContent = stats.packets_dropped + (stats.gops_dropped ? ` · ${stats.gops_dropped} GOP` : "");
    dropped.classList.toggle("bad", stats.packets_dropped > 0);
    const reconnects = $(".reconnects", element);
    reconnects.textContent = stats.reconnects;
    reconnects.classList.toggle("bad", stats.reconnects > 0);
    $(".queue", element).textContent = `${destination.queue_ms} ms`;
    renderLatency($(".latency", element), destination.latency);
    $(".error", element).textContent = destination.state === "failed" ? destination.reason : (destination.last_error || "");
  }
}

// The estimated wait behind the camera: everything when the platform's part is known, else
// onair's part (and its queue) only.
function renderLatency(cell, latency) {
  if (!latency) return;
  const known = latency.total_ms !== undefined;
  const ms = known ? latency.total_ms : latency.onair_ms + latency.queued_ms;
  cell.textContent = (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`) + (known ? "" : " + receiver");
  cell.title = `estimate: onair ${latency.onair_ms} ms, queued ${latency.queued_ms} ms` +
    (known ? `, ${latency.viewer} ${latency.platform_ms} ms` : "; the receiver's part is not known");
}

function makeTile(destination) {
  const element = $("#tile").content.firstElementChild.cloneNode(true);
  element.dataset.destination = destination.name;
  $(".name", element).textContent = destination.name;
  $(".platform", element).textContent = [destination.platform, destination.required ? "required" : "optional"].filter(Boolean).join(" · ");
  const tile = { element, samples: [], url: null, visible: true, loading: false };
  visibility.observe(element);
  return tile;
}

function drawSparkline(element, samples) {
  const top = Math.max(...samples, 1);
  const step = 120 / (HISTORY - 1);
  const start = 120 - (samples.length - 1) * step;
  const points = samples.map((value, index) => [start + index * step, 27 - (value / top) * 24]);
  const line = points.map(([x, y], index) => `${index ? "L" : "M"}${x.toFixed(1)},${y.toFixed(1)}`).join("");
  $(".spark .line", element).setAttribute("d", line);
  $(".spark .area", element).setAttribute("d", points.length ? `${line}L120,28L${start.toFixed(1)},28Z` : "");
}

function renderRenditions(renditions) {
  $("#renditions").replaceChildren(...renditions.map((r) => row([
    r.id, `${r.width}×${r.height}`, [r.fps.toFixed(1), "n"], [r.speed.toFixed(2) + "×", "n" + (r.speed < 0.97 ? " slow" : "")],
    [bitrate(r.bitrate), "n"], [r.frames.toLocaleString(), "n"], [r.repeated, "n"],
  ])));
}

// An input's part in failover: who feeds a primary's place, whose backup an input is.
function failoverRole(name, failover) {
  const group = failover.find((g) => g.input === name);
  if (group) return group.on_air === name ? "on air" : `${group.on_air} on air (${group.reason})`;
  const backed = failover.find((g) => g.backups.includes(name));
  if (backed) return backed.on_air === name ? `on air for ${backed.input}` : `backup of ${backed.input}`;
  return "";
}

function renderInputs(inputs, failover) {
  $("#inputs").replaceChildren(...inputs.map((input) => {
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.dataset.state = { connected: "live", waiting: "connecting", lost: "retrying", failed: "failed" }[input.state] || "";
    badge.textContent = input.state;
    if (input.last_error) badge.title = input.last_error;
    // Two inputs may serve one source (a test source's pictures and its tone): the label tells them apart.
    return row([input.label || input.name, input.kind, badge, [input.losses, "n"], failoverRole(input.name, failover)]);
  }));
}

// A meter per mix: the momentary loudness as a bar from -60 to 0 LUFS, its figures beside it.
function renderMeters(levels) {
  $("#meters").replaceChildren(...levels.map((level) => {
    const meter = document.createElement("div");
    meter.className = "meter";
    meter.dataset.mix = level.mix;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = level.mix;
    const bar = document.createElement("span");
    bar.className = "bar";
    bar.setAttribute("role", "meter");
    bar.setAttribute("aria-label", `${level.mix} momentary loudness`);
    bar.setAttribute("aria-valuemin", "-60");
    bar.setAttribute("aria-valuemax", "0");
    bar.setAttribute("aria-valuenow", String(level.momentary));
    const fill = document.createElement("span");
    fill.className = "fill" + (level.true_peak > -1 ? " hot" : "");
    fill.style.width = `${Math.min(100, Math.max(0, (level.momentary + 60) / 60 * 100))}%`;
    bar.append(fill);
    const figures = document.createElement("span");
    figures.className = "figures";
    const lufs = (value) => value <= -120 ? "–" : value.toFixed(1);
    figures.textContent = `M ${lufs(level.momentary)} · S ${lufs(level.short_term)} · I ${lufs(level.integrated)} LUFS · `
      + `LRA ${level.range.toFixed(1)} LU · TP ${lufs(level.true_peak)} dBTP`;
    meter.append(name, bar, figures);
    return meter;
  }));
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const cell of cells) {
    const td = document.createElement("td");
    const [value, className] = Array.isArray(cell) ? cell : [cell, ""];
    if (className) td.className = className;
    if (value instanceof Node) td.append(value); else td.textContent = value;
    tr.append(td);
  }
  return tr;
}

// ---------- previews: at most one request per tile at a time, once a second

const visibility = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const tile = tiles.get(entry.target.dataset.destination);
    if (tile) tile.visible = entry.isIntersecting;
  }
});

async function refreshPreview(name, tile) {
  if (tile.loading || !tile.visible) return;
  tile.loading = true;
  try {
    const response = await api(`/api/v1/destinations/${encodeURIComponent(name)}/preview.jpg`);
    if (!response.ok) return;
    // "planned": drawn from the plan (as onair preview draws it) while the destination is not live yet.
    const source = response.headers.get("X-Picture-Source") || "live";
    const url = URL.createObjectURL(await response.blob());
    const image = $(".preview img", tile.element);
    // The tile's next request waits until this picture is shown (or could not be): requests
    // never pile up on a slow page, and every picture's blob URL is let go of in turn.
    await new Promise((resolve) => {
      image.onload = () => {
        image.dataset.loaded = "true";
        tile.element.dataset.picture = source;
        resolve();
      };
      image.onerror = resolve;
      image.src = url;
    });
    if (tile.url) URL.revokeObjectURL(tile.url);
    tile.url = url;
  } catch (error) {
    // The next tick tries again.
  } finally {
    tile.loading = false;
  }
}

function refreshPreviews() {
  for (const [name, tile] of tiles) refreshPreview(name, tile);
}

// ---------- events (SSE)

const TONES = {
  "destination.live": "good", "input.connected": "good", "overlay.applied": "good",
  "destination.retrying": "warn", "input.lost": "warn", "input.waiting": "warn", "destination.connecting": "",
  "destination.failed": "bad", "input.failed": "bad", "run.stopped": "",
  "destination.congested": "warn", "bitrate.changed": "",
  "input.failover": "warn", "input.restored": "good",
  "overlay.failed": "bad", "overlay.restored": "good",
};

function describe(event) {
  switch (event.event) {
    case "input.connected": return (event.label || event.input) + (event.url ? " " + event.url : "");
    case "input.waiting": case "input.lost": case "input.failed": return `${event.label || event.input}: ${event.reason}`;
    case "input.failover":
      return event.reason === "clean" ? `${event.input}: ${event.to} back on air in place of ${event.from}`
        : `${event.input}: ${event.to} on air in place of ${event.from} (${event.reason})`;
    case "input.restored": return `${event.input}: back on air (${event.from} stood in)`;
    case "overlay.applied": return event.overlay;
    case "overlay.failed": return `${event.overlay} failed (${event.reason}); ${event.on_air} on air, retrying`;
    case "overlay.restored": return `${event.overlay} back on air (after ${event.attempts} ${event.attempts === 1 ? "retry" : "retries"})`;
    case "libav.log": return `${event.level}: ${event.message}`;
    case "run.started": return `${event.pipeline}: ${event.inputs} input(s), overlay '${event.overlay}', ${event.renditions} encoder(s) → ${(event.destinations || []).join(", ")}` + (event.api ? ` · ${event.api}` : "");
    case "run.note": return event.message;
    case "destination.congested":
      return `${event.destination}: ${event.queue_ms} ms behind, sending ${bitrate(event.bits_per_second)}`
        + (event.followed ? "" : " (optional: left to drop GOPs)");
    case "bitrate.changed": return `${event.rendition}: ${bitrate(event.from_bps)} → ${bitrate(event.to_bps)} (${event.reason})`;
    case "run.stopped": return event.reason;
    case "audio.silent": return `${event.mix}: dead air since ${(event.since_ms / 1000).toFixed(1)} s`;
    case "audio.silence-ended": return `${event.mix}: heard again`;
    case "audio.clipping": return `${event.mix}: true peak ${event.peak_dbtp} dBTP above ${event.ceiling_dbtp}`;
    case "audio.clipping-ended": return `${event.mix}: under its ceiling again`;
    case "audio.loudness": return `${event.mix}: ${event.loudness_lufs} LUFS, off the target ${event.target_lufs} by more than ${event.tolerance_lu} LU`;
    case "audio.loudness-ended": return `${event.mix}: loudness back within ${event.tolerance_lu} LU of ${event.target_lufs}`;
    case "schedule.fired": case "schedule.skipped": case "schedule.added": case "schedule.cancelled":
      return `#${event.id} ${event.action}` + (event.landed_media_us != null ? ` · landed +${((event.landed_media_us - event.due_media_us) / 1000).toFixed(0)} ms` : "")
        + (event.reason ? ` (${event.reason})` : "");
    default:
      if (event.event.startsWith("destination.")) {
        const detail = event.state === "retrying" ? `retrying (attempt ${event.attempt}, in ${(event.next_try_in_ms / 1000).toFixed(1)}s)`
          : event.state === "failed" ? `failed: ${event.reason}` : event.state;
        return `${event.destination}: ${detail}`;
      }
      return "";
  }
}

function addEvent(event) {
  if (event.event === "stats") return;
  const item = document.createElement("li");
  item.className = "new";
  const time = document.createElement("time");
  time.dateTime = event.ts;
  time.textContent = new Date(event.ts).toLocaleTimeString([], { hour12: false });
  const kind = document.createElement("span");
  kind.className = "kind";
  kind.dataset.tone = TONES[event.event] ?? (event.event === "libav.log" ? "warn" : "");
  kind.textContent = event.event;
  const detail = document.createElement("span");
  detail.className = "detail";
  detail.textContent = describe(event);
  item.append(time, kind, detail);
  const list = $("#events");
  list.prepend(item);
  while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  list.dataset.count = String((Number(list.dataset.count) || 0) + 1);
  if (event.event === "overlay.applied" || event.event === "bitrate.changed" || event.event.startsWith("destination.")
      || event.event === "input.failover" || event.event === "input.restored" || event.event.startsWith("overlay.")) refreshStatus();
  if (event.event.startsWith("schedule.")) refreshSchedule();
}

function connectEvents() {
  const link = $("#link");
  const source = new EventSource("/api/v1/events?last_event_id=0");
  source.onopen = () => { link.dataset.state = "open"; link.title = "live updates: connected"; };
  source.onerror = () => { link.dataset.state = "closed"; link.title = "live updates: reconnecting…"; };
  source.onmessage = (message) => {
    try { addEvent(JSON.parse(message.data)); } catch (error) { /* not an event */ }
  };
}

// ---------- schedule: a strip of the actions on the run's timeline, the next one's countdown

let schedule = null;            // the last GET /api/v1/schedule, and when it came
let scheduleAt = 0;

async function refreshSchedule() {
  try {
    const response = await api("/api/v1/schedule");
    if (!response.ok) return;
    schedule = await response.json();
    scheduleAt = performance.now();
    renderSchedule();
  } catch (error) { /* the status says the run is unreachable */ }
}

function renderSchedule() {
  const panel = $("#schedule");
  panel.hidden = !schedule || schedule.entries.length === 0;
  if (panel.hidden) return;
  const entries = schedule.entries;
  // The strip spans the run's start (or the earliest action) to a little past the last action.
  const first = Math.min(0, ...entries.map((e) => e.due_ms));
  const last = Math.max(schedule.now_ms, ...entries.map((e) => e.due_ms));
  const span = Math.max(1000, (last - first) * 1.05);
  const place = (ms) => `${((ms - first) / span * 100).toFixed(2)}%`;
  const strip = $("#schedule-strip");
  const marks = entries.map((entry) => {
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.dataset.id = entry.id;
    mark.dataset.state = entry.state;
    mark.style.left = place(entry.due_ms);
    mark.title = `#${entry.id} ${entry.action} · ${entry.state} · ${offset(entry.due_ms)}`;
    return mark;
  });
  const now = $(".now", strip);
  now.style.left = place(schedule.now_ms);
  strip.replaceChildren(now, ...marks);
  $("#schedule-entries").replaceChildren(...entries.map((entry) => {
    const item = document.createElement("li");
    item.dataset.id = entry.id;
    item.dataset.state = entry.state;
    const late = entry.landed_media_us != null ? ` · landed +${((entry.landed_media_us - entry.due_media_us) / 1000).toFixed(0)} ms` : "";
    item.textContent = `#${entry.id} ${offset(entry.due_ms)} ${entry.action} · ${entry.state}${late}`;
    return item;
  }));
  renderCountdown();
}

// Runs four times a second from the last answer, so the countdown moves between polls.
function renderCountdown() {
  const line = $("#schedule-next");
  const next = schedule?.next;
  line.dataset.id = next ? next.id : "";
  $(".what", line).textContent = next ? `#${next.id} ${next.action}` : "nothing pending";
  const left = next ? Math.max(0, next.countdown_ms - (performance.now() - scheduleAt)) : null;
  const countdown = $(".countdown", line);
  countdown.textContent = left === null ? "" : "in " + duration(left + 999);
  countdown.dataset.ms = left === null ? "" : String(Math.round(left));
}

function offset(ms) {
  return (ms < 0 ? "-" : "+") + duration(Math.abs(ms));
}

// ---------- players: each hls destination as viewers get it (the browser's own HLS playback)

const HLS_TYPE = "application/vnd.apple.mpegurl";

async function setUpPlayers() {
  let streams = [];
  try {
    const response = await api("/api/v1/hls");
    if (response.ok) streams = (await response.json()).streams;
  } catch (error) {
    return;
  }
  if (!streams.length) return;
  $("#watch").hidden = false;
  $("#players").replaceChildren(...streams.map(makePlayer));
}

function makePlayer(stream) {
  const element = $("#player").content.firstElementChild.cloneNode(true);
  element.dataset.destination = stream.destination;
  $(".name", element).textContent = stream.destination;
  const video = $("video", element), state = $(".player-state", element);
  const say = (name, text) => { element.dataset.state = name; state.textContent = text; };
  if (!video.canPlayType(HLS_TYPE)) {
    video.remove();
    say("unsupported", `this browser does not play HLS itself: open ${location.origin}${stream.playlist} in a player`);
    return element;
  }
  // Until the first segments are written the playlist is missing: try again every 2 s.
  let retry = null;
  const load = () => { retry = null; video.src = stream.playlist; video.play().catch(() => {}); };
  video.addEventListener("playing", () => say("playing", "playing"));
  video.addEventListener("waiting", () => say("waiting", "buffering…"));
  video.addEventListener("error", () => {
    say("waiting", "waiting for the playlist…");
    if (retry === null) retry = setTimeout(load, 2000);
  });
  load();
  return element;
}

// ---------- the clock: everything polled stops while the page is hidden

let timer = null;
function tick() {
  refreshStatus();
  refreshPreviews();
  refreshSchedule();
}
setInterval(() => { if (schedule?.next) renderCountdown(); }, 250);
function startPolling() {
  if (timer === null && document.visibilityState === "visible") {
    tick();
    timer = setInterval(tick, 1000);
  }
}
function stopPolling() {
  clearInterval(timer);
  timer = null;
}
document.addEventListener("visibilitychange", () => (document.visibilityState === "visible" ? startPolling() : stopPolling()));

connectEvents();
setUpPlayers();
startPolling();
