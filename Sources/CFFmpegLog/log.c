#include "cffmpeg_log.h"

#include <libavutil/log.h>
#include <stdatomic.h>
#include <string.h>

static _Atomic(cffmpeg_log_sink) current_sink = NULL;

/// libav often builds one line out of several av_log calls (the first one without a
/// trailing newline), so a partial line is kept per thread until its newline arrives.
enum { LINE_CAPACITY = 4096, NAME_CAPACITY = 128 };

typedef struct {
    char text[LINE_CAPACITY];
    size_t length;
    int level;
    int has_context;
    char context[NAME_CAPACITY];
    int has_parent;
    char parent[NAME_CAPACITY];
} pending_line;

static _Thread_local pending_line pending;

static const char *item_name_of(void *object) {
    if (!object) return NULL;
    AVClass *cls = *(AVClass **)object;
    if (!cls) return NULL;
    if (cls->item_name) return cls->item_name(object);
    return cls->class_name;
}

static const char *parent_name_of(void *object) {
    if (!object) return NULL;
    AVClass *cls = *(AVClass **)object;
    if (!cls || cls->version < (50 << 16 | 15 << 8 | 2) || !cls->parent_log_context_offset) return NULL;
    AVClass **parent = *(AVClass ***)(((uint8_t *)object) + cls->parent_log_context_offset);
    if (!parent || !*parent) return NULL;
    return item_name_of(parent);
}

static void copy_name(char *dst, int *has, const char *src) {
    if (src) {
        strncpy(dst, src, NAME_CAPACITY - 1);
        dst[NAME_CAPACITY - 1] = 0;
        *has = 1;
    } else {
        dst[0] = 0;
        *has = 0;
    }
}

static void flush_pending(cffmpeg_log_sink sink) {
    size_t len = pending.length;
    while (len > 0 && (pending.text[len - 1] == '\n' || pending.text[len - 1] == '\r')) len--;
    pending.text[len] = 0;
    sink(pending.level,
         pending.has_context ? pending.context : NULL,
         pending.has_parent ? pending.parent : NULL,
         pending.text);
    pending.length = 0;
    pending.text[0] = 0;
}

static void trampoline(void *avcl, int level, const char *fmt, va_list vl) {
    cffmpeg_log_sink sink = atomic_load(&current_sink);
    if (!sink) return;
    level &= 0xff;
    if (level > av_log_get_level()) return;

    char chunk[LINE_CAPACITY];
    int print_prefix = 0;  // the context travels separately, never inside the text
    va_list copy;
    va_copy(copy, vl);
    av_log_format_line2(NULL, level, fmt, copy, chunk, sizeof(chunk), &print_prefix);
    va_end(copy);

    if (pending.length == 0) {
        pending.level = level;
        copy_name(pending.context, &pending.has_context, item_name_of(avcl));
        copy_name(pending.parent, &pending.has_parent, parent_name_of(avcl));
    } else if (level < pending.level) {
        pending.level = level;  // a continuation can only make the line more severe
    }

    size_t chunk_len = strlen(chunk);
    size_t room = LINE_CAPACITY - 1 - pending.length;
    if (chunk_len > room) chunk_len = room;
    memcpy(pending.text + pending.length, chunk, chunk_len);
    pending.length += chunk_len;
    pending.text[pending.length] = 0;

    int complete = pending.length > 0 && pending.text[pending.length - 1] == '\n';
    if (complete || pending.length >= LINE_CAPACITY - 1) flush_pending(sink);
}

void cffmpeg_log_install(cffmpeg_log_sink sink) {
    atomic_store(&current_sink, sink);
    av_log_set_callback(sink ? trampoline : av_log_default_callback);
}

static _Thread_local char thread_marker;

uint64_t cffmpeg_log_thread_token(void) {
    return (uint64_t)(uintptr_t)&thread_marker;
}
