// Captures libav's log output: an av_log callback (it receives a va_list, which Swift
// cannot format) turns every complete line into plain C strings and hands them to a sink.
#ifndef CFFMPEG_LOG_H
#define CFFMPEG_LOG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Receives one complete libav log line.
///
/// - level: the libav level (AV_LOG_ERROR = 16, ...), flags stripped.
/// - context: `item_name` of the logging object's AVClass (for a filter instance its name,
///   e.g. "Parsed_chromakey_3"), or NULL when the line was logged without a context.
/// - parent_context: `item_name` of the parent object when the class declares one through
///   `parent_log_context_offset` (e.g. the filter that owns an "Eval" context), else NULL.
/// - message: the text, without the "[name @ 0x...]" prefix and without the trailing newline.
///
/// Called on whichever thread logged; the strings live only for the duration of the call.
typedef void (*cffmpeg_log_sink)(int level, const char *context,
                                  const char *parent_context, const char *message);

/// Routes every libav log line to `sink` (NULL restores libav's default callback).
/// Lines above the current `av_log_get_level()` are dropped before formatting.
void cffmpeg_log_install(cffmpeg_log_sink sink);

/// An identifier of the calling thread, unique among live threads.
uint64_t cffmpeg_log_thread_token(void);

#ifdef __cplusplus
}
#endif

#endif
