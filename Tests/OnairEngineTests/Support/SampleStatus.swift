import OnairControl
import OnairEngine

/// A run with two renditions and three destinations in different states, as the API and the
/// JSON log carry it (the status block's tests, in OnairCLITests, build the same run in Swift).
let sampleStatusJSON = """
    {"audio_muted_destinations":[],"destinations":[\
    {"name":"youtube","platform":"youtube","queue_bytes":0,"queue_ms":0,"required":true,"state":"live",\
    "stats":{"bits_per_second":4520000,"bytes_sent":3000000,"gops_dropped":0,"packets_dropped":0,"packets_sent":4000,"reconnects":0}},\
    {"attempt":3,"name":"twitch","next_try_in_ms":4000,"platform":"twitch","queue_bytes":0,"queue_ms":0,"required":false,"state":"retrying",\
    "stats":{"bits_per_second":0,"bytes_sent":700000,"gops_dropped":1,"packets_dropped":48,"packets_sent":900,"reconnects":2}},\
    {"name":"archive","queue_bytes":0,"queue_ms":0,"reason":"disk full","required":false,"state":"failed",\
    "stats":{"bits_per_second":0,"bytes_sent":0,"gops_dropped":0,"packets_dropped":0,"packets_sent":0,"reconnects":0}}],\
    "elapsed_ms":83000,"events_dropped":[],"failover":[],"inputs":[],"loudness":[],"mixes":[],"overlay":"room","overlays":[],"pipeline":"studio",\
    "renditions":[{"bitrate":3200000,"bitrate_control":"operator","fps":30,"frames":2490,"height":720,"id":"r0","repeated":0,"speed":1,"width":1280},\
    {"bitrate":0,"bitrate_control":"fixed","fps":28.4,"frames":2400,"height":1280,"id":"r1","repeated":3,"speed":0.9,"width":720}],\
    "sources":[],"started_at":"1970-01-01T00:00:00Z","state":"live"}
    """

/// ``sampleStatusJSON`` decoded.
func sampleStatus() throws -> RunStatus {
    try decode(RunStatus.self, sampleStatusJSON)
}
