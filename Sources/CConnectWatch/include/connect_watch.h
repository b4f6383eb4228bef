// Tells an output which TCP connection libavformat made for it. libavformat (FFmpeg 5.1) opens
// an RTMP or RTMPS output's TCP connection itself and exports no way to reach its descriptor.
// This target defines connect() and close() for the executable that links it, and the dynamic
// linker binds libavformat's calls to them (symbol interposition; why this mechanism, in
// connect_watch.c). Each passes every call on to the next definition (libc's, or a sanitizer's
// interceptor) and, on a thread that is watching, notes what libavformat itself connected and
// closed: connect_watch_end() names the one it connected on this thread and kept open.
#ifndef CONNECT_WATCH_H
#define CONNECT_WATCH_H

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when libavformat's calls to connect() and close() reach this target's definitions (the
/// process's own look-up says so); 0 when they don't (this target is not in the executable, or
/// the executable does not export them).
int connect_watch_available(void);

/// Starts noting, on this thread only, the TCP connections libavformat makes and closes.
void connect_watch_begin(void);

/// Stops noting; the descriptor of the last TCP connection libavformat made on this thread
/// since connect_watch_begin() and kept — not closed since, still connected from the local
/// address it had when it connected to the address it connected to — or -1. Of the sockets a
/// Happy-Eyeballs connect tries, that is the one that won.
int connect_watch_end(void);

#ifdef __cplusplus
}
#endif

#endif
