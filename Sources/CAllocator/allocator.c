// jemalloc instead of glibc's allocator for the `onair` executable. A run that switches
// overlays and reconnects for hours builds and frees graphs, frames and connections on many
// threads; glibc's per-thread arenas fragment under that (the soak's resident memory grew
// about 11 MB in 12 minutes while the memory in use stayed flat), jemalloc's size classes do
// not (Benchmarks/README.md, "Soak").
//
// jemalloc reads `malloc_conf` when it starts. Unused pages go back to the system after about a
// second instead of its default ten: the graphs a switch replaces are freed all at once, and
// what a live run holds should not swing by tens of MB with the switches.
// (MALLOC_CONF in the environment still applies on top, for experiments.)
const char *malloc_conf = "dirty_decay_ms:1000";
