#include "frame_kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Both kernels work in limited-range BT.601 (what libswscale assumes for untagged video, and so
// what libavfilter's RGB filters see) and keep every per-pixel step in integers, so the loops
// over whole rows vectorise.

// The row loops are compiled twice, for AVX2 and for the baseline, and the better one is picked
// when the library loads (an ifunc): AVX2 runs them about three times faster. Not under
// ThreadSanitizer, which instruments the ifunc's resolver too: the dynamic loader runs it before
// the sanitizer's runtime is up, and the program crashes before main (scripts/sanitize).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FK_NO_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__ELF__) && (defined(__clang__) || defined(__GNUC__)) && !defined(FK_NO_CLONES)
#define FK_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FK_VECTOR_CLONES
#endif
// Helpers of the cloned functions are inlined into each clone, to be compiled for its target.
#define FK_ROW_LOOP static inline __attribute__((always_inline))

static inline int clamp_int(int value, int low, int high) {
    return value < low ? low : value > high ? high : value;
}

static inline int chroma_size(int luma) { return (luma + 1) / 2; }

// MARK: - Chroma key

// The ramp is (distance - similarity) / blend in 1/1024, kept within +-31 (an int16): a 3x3
// average mixing subject and screen then matches chromakey's average of distances unless a
// neighbour lies more than 31 blends away, where both give 0 or 255 anyway.
enum { RAMP_ONE = 1024, RAMP_LOW = -31 * RAMP_ONE, RAMP_HIGH = 31 * RAMP_ONE };

struct fk_chroma_key {
    int16_t ramp[256 * 256];   // by (U << 8 | V)
    int hard;                  // blend ~ 0: alpha is 0 or 255
    int spill;                 // remove spill
    int spill_u, spill_v;      // spill = max(0, spill_u * (U - 128) + spill_v * (V - 128)), 1/1024 RGB levels
    int delta_y, delta_u, delta_v;  // change of Y, U, V per RGB level of spill, in 1/1024
    // Scratch rows of `row_capacity`, grown on demand: the ramp of three chroma rows and Y's
    // change from spill (`rows`), the vertical sums for the upper and lower luma row (`sums`).
    int16_t *rows;
    int32_t *sums;
    int row_capacity;
};

fk_chroma_key *fk_chroma_key_create(uint32_t rgb, float similarity, float blend, float spill_mix, int spill_blue) {
    fk_chroma_key *key = calloc(1, sizeof(*key));
    if (!key) return NULL;
    int r = (rgb >> 16) & 0xFF, g = (rgb >> 8) & 0xFF, b = rgb & 0xFF;
    // The key colour's chroma as chromakey derives it from RGB: full-range BT.601 in 10-bit
    // fixed point, rounded down after adding just under a half.
    int key_u = ((-173 * r - 339 * g + 512 * b + 511) >> 10) + 128;
    int key_v = ((512 * r - 429 * g - 83 * b + 511) >> 10) + 128;
    key->hard = blend <= 0.0001f;
    double slope = key->hard ? 10000.0 : 1.0 / blend;
    for (int u = 0; u < 256; u++) {
        for (int v = 0; v < 256; v++) {
            double du = u - key_u, dv = v - key_v;
            double distance = sqrt((du * du + dv * dv) / (255.0 * 255.0 * 2.0));
            double ramp = (distance - similarity) * slope * RAMP_ONE;
            key->ramp[u << 8 | v] = (int16_t)clamp_int((int)lrint(fmax(fmin(ramp, RAMP_HIGH), RAMP_LOW)), RAMP_LOW, RAMP_HIGH);
        }
    }
    key->spill = spill_mix >= 0;
    double mix = spill_mix < 0 ? 0 : spill_mix;
    // RGB from limited-range YUV: R = 1.16438 Y' + 1.59603 V', G = 1.16438 Y' - 0.39176 U' -
    // 0.81297 V', B = 1.16438 Y' + 2.01723 U'. Spill (despill with expand 0) is the screen's
    // channel minus mix * R + (1 - mix) * the other one; Y' cancels out, so it depends on the
    // chroma alone. Removing it from that channel changes Y, U, V by the matrix's column.
    if (spill_blue) {
        key->spill_u = (int)lrint((2.01723 + (1 - mix) * 0.39176) * 1024);
        key->spill_v = (int)lrint((-mix * 1.59603 + (1 - mix) * 0.81297) * 1024);
        key->delta_y = (int)lrint(-24.966 / 255 * 1024);
        key->delta_u = (int)lrint(-112.0 / 255 * 1024);
        key->delta_v = (int)lrint(18.214 / 255 * 1024);
    } else {
        key->spill_u = (int)lrint(-(0.39176 + (1 - mix) * 2.01723) * 1024);
        key->spill_v = (int)lrint(-(0.81297 + mix * 1.59603) * 1024);
        key->delta_y = (int)lrint(-128.553 / 255 * 1024);
        key->delta_u = (int)lrint(74.203 / 255 * 1024);
        key->delta_v = (int)lrint(93.786 / 255 * 1024);
    }
    return key;
}

void fk_chroma_key_free(fk_chroma_key *key) {
    if (!key) return;
    free(key->rows);
    free(key->sums);
    free(key);
}

FK_ROW_LOOP void ramp_row(const fk_chroma_key *key, const uint8_t *u, const uint8_t *v, int width, int16_t *out) {
    for (int x = 0; x < width; x++) out[x] = key->ramp[u[x] << 8 | v[x]];
}

// One luma row of alpha from the vertical 3x1 sums of its chroma row, which has one padding
// sample on each side (sums[-1], sums[chroma_width]): the chroma samples under a luma pixel's
// 3x3 neighbourhood in 4:2:0 weigh 1, 2 (even pixels) or 2, 1 (odd pixels) on each axis.
// Written in pairs of pixels so that the loop vectorises.
FK_ROW_LOOP void alpha_row(const int32_t *sums, int width, int hard, uint8_t *alpha) {
    // sum / 9 in 1/1024 units to 0...255: * 255 / (9 * 1024), as a multiply and a shift, on
    // sums kept within [0, 9 * 1024] first (outside, alpha is 0 or 255 anyway).
    const int scale = 29013;  // 255 * 2^20 / 9216
    const int full = 9 * RAMP_ONE;
    const int pairs = (width + 1) / 2;
    if (hard) {
        for (int k = 0; k < pairs - 1; k++) {
            int centre = 2 * sums[k];
            alpha[2 * k] = (sums[k - 1] + centre) > 0 ? 255 : 0;
            alpha[2 * k + 1] = (centre + sums[k + 1]) > 0 ? 255 : 0;
        }
    } else {
        for (int k = 0; k < pairs - 1; k++) {
            int centre = 2 * sums[k];
            int even = clamp_int(sums[k - 1] + centre, 0, full), odd = clamp_int(centre + sums[k + 1], 0, full);
            alpha[2 * k] = (uint8_t)((even * scale + (1 << 19)) >> 20);
            alpha[2 * k + 1] = (uint8_t)((odd * scale + (1 << 19)) >> 20);
        }
    }
    // The last pair (or single pixel, for an odd width) on its own.
    for (int x = 2 * (pairs - 1); x < width; x++) {
        int k = x >> 1, centre = 2 * sums[k];
        int total = (x & 1) ? centre + sums[k + 1] : sums[k - 1] + centre;
        alpha[x] = (uint8_t)(hard ? (total > 0 ? 255 : 0) : (clamp_int(total, 0, full) * scale + (1 << 19)) >> 20);
    }
}

FK_VECTOR_CLONES
void fk_chroma_key_apply(fk_chroma_key *key, const fk_picture *source, fk_picture *destination) {
    const int width = source->width, height = source->height;
    const int chroma_width = chroma_size(width), chroma_height = chroma_size(height);
    const int padded = chroma_width + 2;
    if (key->row_capacity < padded) {
        free(key->rows);
        free(key->sums);
        key->rows = malloc(sizeof(int16_t) * 4 * (size_t)padded);
        key->sums = malloc(sizeof(int32_t) * 2 * (size_t)padded);
        key->row_capacity = key->rows && key->sums ? padded : 0;
        if (!key->row_capacity) return;
    }
    // Rows of padded length, their data from index 1: the ramp of chroma rows j - 1, j, j + 1,
    // Y's change from spill, and the vertical sums for the upper and the lower luma row.
    int16_t *ring[3] = {key->rows + 1, key->rows + padded + 1, key->rows + 2 * padded + 1};
    int16_t *luma_change = key->rows + 3 * padded + 1;
    int32_t *top = key->sums + 1, *bottom = key->sums + padded + 1;

    const uint8_t *const su = source->planes[1], *const sv = source->planes[2];
    const int su_stride = source->strides[1], sv_stride = source->strides[2];
    // The ramp of row j + 1 is computed from the source before row j + 1 is despilled, so
    // in-place keying reads untouched chroma. Edges repeat the outermost row and column.
    ramp_row(key, su, sv, chroma_width, ring[1]);
    memcpy(ring[0], ring[1], sizeof(int16_t) * chroma_width);
    for (int j = 0; j < chroma_height; j++) {
        int16_t *previous = ring[j % 3], *current = ring[(j + 1) % 3], *next = ring[(j + 2) % 3];
        if (j + 1 < chroma_height) {
            ramp_row(key, su + (j + 1) * su_stride, sv + (j + 1) * sv_stride, chroma_width, next);
        } else {
            memcpy(next, current, sizeof(int16_t) * chroma_width);
        }
        for (int k = 0; k < chroma_width; k++) {
            top[k] = previous[k] + 2 * current[k];
            bottom[k] = 2 * current[k] + next[k];
        }
        top[-1] = top[0], top[chroma_width] = top[chroma_width - 1];
        bottom[-1] = bottom[0], bottom[chroma_width] = bottom[chroma_width - 1];
        const uint8_t *u = su + j * su_stride, *v = sv + j * sv_stride;
        uint8_t *du = destination->planes[1] + j * destination->strides[1];
        uint8_t *dv = destination->planes[2] + j * destination->strides[2];
        if (key->spill) {
            for (int k = 0; k < chroma_width; k++) {
                int spill = key->spill_u * (u[k] - 128) + key->spill_v * (v[k] - 128);
                spill = spill > 0 ? spill : 0;  // RGB levels in 1/1024
                int new_u = u[k] + ((spill * key->delta_u + (1 << 19)) >> 20);
                int new_v = v[k] + ((spill * key->delta_v + (1 << 19)) >> 20);
                luma_change[k] = (int16_t)((spill * key->delta_y + (1 << 19)) >> 20);
                du[k] = (uint8_t)clamp_int(new_u, 0, 255);
                dv[k] = (uint8_t)clamp_int(new_v, 0, 255);
            }
            luma_change[chroma_width] = luma_change[chroma_width - 1];
        } else if (du != u || dv != v) {
            memcpy(du, u, chroma_width);
            memcpy(dv, v, chroma_width);
        }
        for (int half = 0; half < 2; half++) {
            int y = 2 * j + half;
            if (y >= height) break;
            alpha_row(half ? bottom : top, width, key->hard, destination->planes[3] + y * destination->strides[3]);
            const uint8_t *sy = source->planes[0] + y * source->strides[0];
            uint8_t *dy = destination->planes[0] + y * destination->strides[0];
            if (key->spill) {
                for (int k = 0; k < width / 2; k++) {
                    int change = luma_change[k];
                    dy[2 * k] = (uint8_t)clamp_int(sy[2 * k] + change, 0, 255);
                    dy[2 * k + 1] = (uint8_t)clamp_int(sy[2 * k + 1] + change, 0, 255);
                }
                if (width & 1) dy[width - 1] = (uint8_t)clamp_int(sy[width - 1] + luma_change[width / 2], 0, 255);
            } else if (dy != sy) {
                memcpy(dy, sy, width);
            }
        }
    }
}

// MARK: - Automatic lighting

enum { SAMPLE_STEP = 4 };  // every 4th pixel of every 4th row: one in 16

struct fk_lighting {
    int history_length;
    int64_t frames;
    float strength;
    uint16_t *history;     // 6 rings of history_length: minimum and maximum of R, G, B
    uint64_t sums[6];
};

fk_lighting *fk_lighting_create(int smoothing, float strength) {
    fk_lighting *lighting = calloc(1, sizeof(*lighting));
    if (!lighting) return NULL;
    lighting->history_length = (smoothing < 0 ? 0 : smoothing) + 1;
    lighting->strength = strength < 0 ? 0 : strength > 1 ? 1 : strength;
    lighting->history = calloc(6 * (size_t)lighting->history_length, sizeof(uint16_t));
    if (!lighting->history) {
        free(lighting);
        return NULL;
    }
    return lighting;
}

void fk_lighting_free(fk_lighting *lighting) {
    if (!lighting) return;
    free(lighting->history);
    free(lighting);
}

// The sampled minimum and maximum of R, G and B (full range, as libswscale converts).
FK_ROW_LOOP void sample_range(const fk_picture *picture, int low[3], int high[3]) {
    for (int c = 0; c < 3; c++) {
        low[c] = 255;
        high[c] = 0;
    }
    for (int y = 0; y < picture->height; y += SAMPLE_STEP) {
        const uint8_t *row = picture->planes[0] + y * picture->strides[0];
        const uint8_t *u = picture->planes[1] + (y >> 1) * picture->strides[1];
        const uint8_t *v = picture->planes[2] + (y >> 1) * picture->strides[2];
        for (int x = 0; x < picture->width; x += SAMPLE_STEP) {
            int luma = 1192 * (row[x] - 16) + 512, cu = u[x >> 1] - 128, cv = v[x >> 1] - 128;
            int rgb[3] = {
                clamp_int((luma + 1634 * cv) >> 10, 0, 255),
                clamp_int((luma - 401 * cu - 833 * cv) >> 10, 0, 255),
                clamp_int((luma + 2066 * cu) >> 10, 0, 255),
            };
            for (int c = 0; c < 3; c++) {
                if (rgb[c] < low[c]) low[c] = rgb[c];
                if (rgb[c] > high[c]) high[c] = rgb[c];
            }
        }
    }
}

FK_ROW_LOOP void map_plane(const uint8_t *source, int source_stride, uint8_t *destination, int destination_stride,
                      int width, int height, int gain, int offset, int low, int high) {
    // value * gain / 1024 + offset / 1024, rounded and kept in [low, high].
    for (int y = 0; y < height; y++) {
        const uint8_t *in = source + y * source_stride;
        uint8_t *out = destination + y * destination_stride;
        for (int x = 0; x < width; x++) {
            int value = (in[x] * gain + offset) >> 10;
            out[x] = (uint8_t)(value < low ? low : value > high ? high : value);
        }
    }
}

FK_VECTOR_CLONES
void fk_lighting_apply(fk_lighting *lighting, const fk_picture *source, fk_picture *destination) {
    int low[3], high[3];
    sample_range(source, low, high);
    // normalize's history: the range of each channel averaged over the last history_length
    // pictures, linked across channels (independence 0): the lowest minimum, the highest maximum.
    const int length = lighting->history_length;
    const int slot = (int)(lighting->frames % length);
    int64_t count = lighting->frames + 1;
    if (lighting->frames >= length) count = length;
    float smoothed_low = 255, smoothed_high = 0;
    for (int c = 0; c < 3; c++) {
        uint16_t *lows = lighting->history + (2 * c) * length, *highs = lighting->history + (2 * c + 1) * length;
        if (lighting->frames >= length) {
            lighting->sums[2 * c] -= lows[slot];
            lighting->sums[2 * c + 1] -= highs[slot];
        }
        lows[slot] = (uint16_t)low[c];
        highs[slot] = (uint16_t)high[c];
        lighting->sums[2 * c] += lows[slot];
        lighting->sums[2 * c + 1] += highs[slot];
        float channel_low = lighting->sums[2 * c] / (float)count, channel_high = lighting->sums[2 * c + 1] / (float)count;
        if (channel_low < smoothed_low) smoothed_low = channel_low;
        if (channel_high > smoothed_high) smoothed_high = channel_high;
    }
    lighting->frames++;
    // Each channel maps [smoothed_low, smoothed_high] onto its own output range (this picture's
    // range moved towards black and white by `strength`), as normalize's table does. One linear
    // map for all three, weighted as luma weighs them, keeps the work in YUV and the hue intact.
    const float strength = lighting->strength, weights[3] = {0.299f, 0.587f, 0.114f};
    float gain = 0, offset = 0;
    for (int c = 0; c < 3; c++) {
        float out_low = low[c] * (1 - strength), out_high = 255 * strength + high[c] * (1 - strength);
        float scale = smoothed_high > smoothed_low ? (out_high - out_low) / (smoothed_high - smoothed_low) : 0;
        gain += weights[c] * scale;
        offset += weights[c] * (out_low - smoothed_low * scale);
    }
    // RGB' = gain * RGB + offset becomes Y' = 16 + gain * (Y - 16) + offset * 219 / 255 and
    // C' = 128 + gain * (C - 128) for U and V.
    const int luma_gain = (int)lrintf(gain * 1024);
    const int luma_offset = (int)lrintf((16 - 16 * gain + offset * 219.0f / 255.0f) * 1024) + 512;
    const int chroma_offset = (int)lrintf((128 - 128 * gain) * 1024) + 512;
    const int chroma_width = chroma_size(source->width), chroma_height = chroma_size(source->height);
    map_plane(source->planes[0], source->strides[0], destination->planes[0], destination->strides[0],
              source->width, source->height, luma_gain, luma_offset, 16, 235);
    for (int plane = 1; plane < 3; plane++) {
        map_plane(source->planes[plane], source->strides[plane], destination->planes[plane], destination->strides[plane],
                  chroma_width, chroma_height, luma_gain, chroma_offset, 16, 240);
    }
}
