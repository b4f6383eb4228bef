// Pixel work that libavfilter does too slowly for live 1080p on two cores, done on 8-bit 4:2:0
// pictures (yuv420p) in one pass each: a chroma key with spill removal (what chromakey +
// despill do, without their RGB round trip and per-pixel square roots) and automatic lighting
// (what normalize does in linked mode, from a sample of the pixels, without leaving YUV).
// Plain C on plane pointers: no FFmpeg types, so the arithmetic can be tested on its own.
#ifndef ONAIR_FRAME_KERNELS_H
#define ONAIR_FRAME_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An 8-bit 4:2:0 picture: planes Y, U, V and, where a kernel writes one, alpha (plane 3,
/// full size). Chroma planes are (width + 1) / 2 by (height + 1) / 2.
typedef struct {
    uint8_t *planes[4];
    int strides[4];
    int width;
    int height;
} fk_picture;

/// A prepared chroma key: its settings and a table of the key's ramp for every (U, V) pair.
typedef struct fk_chroma_key fk_chroma_key;

/// Prepares a chroma key for the colour `rgb` (0xRRGGBB), with chromakey's `similarity` and
/// `blend` and despill's `mix` (`spill_mix` < 0: no spill removal); `spill_blue` removes blue
/// spill instead of green. NULL when out of memory.
fk_chroma_key *fk_chroma_key_create(uint32_t rgb, float similarity, float blend, float spill_mix, int spill_blue);

/// Frees a key made by `fk_chroma_key_create` (NULL is ignored).
void fk_chroma_key_free(fk_chroma_key *key);

/// Keys `source` into `destination` (same size): alpha from the distance of each pixel's
/// chroma to the key colour, averaged over its 3x3 neighbourhood as chromakey does, and spill
/// removed from Y, U and V. `destination`'s Y, U, V planes may be `source`'s (in place). Not
/// thread safe: the key keeps scratch rows.
void fk_chroma_key_apply(fk_chroma_key *key, const fk_picture *source, fk_picture *destination);

/// Automatic lighting with its running history.
typedef struct fk_lighting fk_lighting;

/// Prepares automatic lighting that stretches each picture's range towards black and white
/// with `strength` (0...1), the range averaged over the current and `smoothing` previous
/// pictures. NULL when out of memory.
fk_lighting *fk_lighting_create(int smoothing, float strength);

/// Frees lighting made by `fk_lighting_create` (NULL is ignored).
void fk_lighting_free(fk_lighting *lighting);

/// Measures `source` (one pixel in 16) and writes it corrected into `destination` (same size;
/// may be `source`).
void fk_lighting_apply(fk_lighting *lighting, const fk_picture *source, fk_picture *destination);

#ifdef __cplusplus
}
#endif

#endif
