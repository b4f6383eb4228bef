// Tells an output which TCP connection libavformat made for it. libavformat (FFmpeg 5.1) opens
// an RTMP or RTMPS output's TCP connection itself and exports no way to reach its descriptor;
// its calls to connect() and close() go through entries of its own global offset table, which
// connect_watch_install() points at recorders. Each recorder calls what the entry held before
// (libc's function, or a sanitizer's interceptor of it) and, on a thread that is watching,
// notes the descriptor: connect_watch_end() names the one libavformat connected on this thread
// and kept open. No other library's calls are touched.
#ifndef CONNECT_WATCH_H
#define CONNECT_WATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/// Points libavformat's entries for connect() and close() at the recorders, once per process
/// (later calls return the first one's result). 1 when connect() is watched, 0 when its entry
/// was not found (another platform, or a libavformat linked statically).
int connect_watch_install(void);

/// Starts noting, on this thread only, the TCP connections libavformat makes and closes.
void connect_watch_begin(void);

/// Stops noting; the descriptor of the last TCP connection libavformat made on this thread
/// since connect_watch_begin() and kept — not closed through libavformat, still connected
/// from the local address it had when it connected to the address it connected to — or -1.
/// Of the sockets a Happy-Eyeballs connect tries, that is the one that won.
int connect_watch_end(void);

#ifdef __cplusplus
}
#endif

#endif
