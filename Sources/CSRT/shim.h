// libsrt (Debian 12: 1.5, the GnuTLS build FFmpeg links), plus stand-ins for the constants
// Swift cannot import.
#ifndef CSRT_SHIM_H
#define CSRT_SHIM_H

#include <srt/srt.h>

static inline int csrt_error(void) { return SRT_ERROR; }
static inline int csrt_would_block_sending(void) { return SRT_EASYNCSND; }

#endif
