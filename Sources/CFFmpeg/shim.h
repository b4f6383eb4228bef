// Umbrella header for the FFmpeg libraries, plus `static inline` stand-ins for the
// function-like macros and compound-literal constants that Swift cannot import.
#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H

#include <errno.h>
#include <stdint.h>

#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/error.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/samplefmt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/time.h>
#include <libavutil/parseutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/rational.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/avstring.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// MARK: Error codes (AVERROR(e), AVERROR_* are macros)

static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_averror_einval(void) { return AVERROR(EINVAL); }
static inline int cffmpeg_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int cffmpeg_averror_epipe(void) { return AVERROR(EPIPE); }
static inline int cffmpeg_averror_etimedout(void) { return AVERROR(ETIMEDOUT); }
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_averror_exit(void) { return AVERROR_EXIT; }
static inline int cffmpeg_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_averror_option_not_found(void) { return AVERROR_OPTION_NOT_FOUND; }
static inline int cffmpeg_averror_filter_not_found(void) { return AVERROR_FILTER_NOT_FOUND; }
static inline int cffmpeg_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cffmpeg_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cffmpeg_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int cffmpeg_averror_input_changed(void) { return AVERROR_INPUT_CHANGED; }
static inline int cffmpeg_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }

/// Size of a buffer large enough for any `av_strerror` message.
static inline int cffmpeg_error_max_string_size(void) { return AV_ERROR_MAX_STRING_SIZE; }

// MARK: Timestamps (AV_NOPTS_VALUE and AV_TIME_BASE_Q are macros / compound literals)

static inline int64_t cffmpeg_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline AVRational cffmpeg_time_base_q(void) { AVRational q = { 1, AV_TIME_BASE }; return q; }
static inline AVRational cffmpeg_rational(int num, int den) { AVRational q = { num, den }; return q; }

/// `av_rescale_q_rnd` with AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX, as ffmpeg rescales packet timestamps.
static inline int64_t cffmpeg_rescale_ts(int64_t ts, AVRational from, AVRational to) {
    return av_rescale_q_rnd(ts, from, to, (enum AVRounding)(AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX));
}

// MARK: Log levels (plain #defines import, but keep one place for them)

static inline int cffmpeg_log_panic(void) { return AV_LOG_PANIC; }
static inline int cffmpeg_log_fatal(void) { return AV_LOG_FATAL; }
static inline int cffmpeg_log_error(void) { return AV_LOG_ERROR; }
static inline int cffmpeg_log_warning(void) { return AV_LOG_WARNING; }
static inline int cffmpeg_log_info(void) { return AV_LOG_INFO; }
static inline int cffmpeg_log_verbose(void) { return AV_LOG_VERBOSE; }
static inline int cffmpeg_log_debug(void) { return AV_LOG_DEBUG; }

// MARK: Filter graph helpers

/// The media type of input pad `index` of a filter instance (AVMEDIA_TYPE_UNKNOWN when out of range).
static inline enum AVMediaType cffmpeg_filter_input_type(const AVFilterContext *ctx, unsigned index) {
    if (!ctx || index >= ctx->nb_inputs) return AVMEDIA_TYPE_UNKNOWN;
    return avfilter_pad_get_type(ctx->input_pads, (int)index);
}

/// The media type of output pad `index` of a filter instance (AVMEDIA_TYPE_UNKNOWN when out of range).
static inline enum AVMediaType cffmpeg_filter_output_type(const AVFilterContext *ctx, unsigned index) {
    if (!ctx || index >= ctx->nb_outputs) return AVMEDIA_TYPE_UNKNOWN;
    return avfilter_pad_get_type(ctx->output_pads, (int)index);
}

// MARK: Frames

/// `AVFrame.linesize[plane]` without going through Swift's 8-tuple.
static inline int cffmpeg_frame_linesize(const AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->linesize[plane] : 0;
}

/// `AVFrame.data[plane]` without going through Swift's 8-tuple.
static inline uint8_t *cffmpeg_frame_data(const AVFrame *frame, int plane) {
    return (plane >= 0 && plane < AV_NUM_DATA_POINTERS) ? frame->data[plane] : NULL;
}

/// Makes `buffer` (a reference the frame takes over) plane `plane` of `frame`, `linesize` bytes
/// a row, in the frame's first free buffer slot. AVERROR(EINVAL) when every slot is taken.
static inline int cffmpeg_frame_attach_plane(AVFrame *frame, int plane, AVBufferRef *buffer, int linesize) {
    for (int slot = 0; slot < AV_NUM_DATA_POINTERS; slot++) {
        if (frame->buf[slot]) continue;
        frame->buf[slot] = buffer;
        frame->data[plane] = buffer->data;
        frame->linesize[plane] = linesize;
        return 0;
    }
    return AVERROR(EINVAL);
}

/// Gives `destination` (without buffers) planes 0..<`planes` of `source`, by reference.
static inline int cffmpeg_frame_share_planes(AVFrame *destination, const AVFrame *source, int planes) {
    for (int slot = 0; slot < AV_NUM_DATA_POINTERS && source->buf[slot]; slot++) {
        destination->buf[slot] = av_buffer_ref(source->buf[slot]);
        if (!destination->buf[slot]) return AVERROR(ENOMEM);
    }
    for (int plane = 0; plane < planes && plane < AV_NUM_DATA_POINTERS; plane++) {
        destination->data[plane] = source->data[plane];
        destination->linesize[plane] = source->linesize[plane];
    }
    return 0;
}

#endif
