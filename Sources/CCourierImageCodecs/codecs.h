// What the decoders of this target share; not part of its public header.
#ifndef CCOURIER_IMAGE_CODECS_INTERNAL_H
#define CCOURIER_IMAGE_CODECS_INTERNAL_H

#include "CCourierImageCodecs.h"

/// Averages the rows of a source image into a smaller image as they arrive. Each result pixel
/// is the mean of the source pixels that fall in its box, with colours weighted by alpha so that
/// transparent pixels do not darken the edges of opaque ones.
typedef struct {
    uint32_t source_width;
    uint32_t source_height;
    uint32_t width;
    uint32_t height;
    /// For each source column, the result column it falls in.
    uint32_t *column_of;
    /// For each result column, how many source columns fall in it.
    uint32_t *columns_in;
    /// For each result pixel of the row being built: alpha-weighted red, green, blue, and alpha.
    uint64_t *sums;
    uint32_t rows_summed;
    uint32_t next_source_row;
    uint32_t row;
    /// The result, `height` rows of `width` RGBA pixels.
    uint8_t *pixels;
} courier_downsampler;

/// Prepares a downsampler; 0 on success, -1 when memory could not be had.
int courier_downsampler_start(courier_downsampler *d, uint32_t source_width, uint32_t source_height, uint32_t width,
                              uint32_t height);
/// Adds the next source row, `source_width` RGBA pixels.
void courier_downsampler_add(courier_downsampler *d, const uint8_t *row);
/// Frees what the downsampler holds, the pixels included unless courier_downsampler_finish
/// handed them on; safe to call more than once.
void courier_downsampler_end(courier_downsampler *d);
/// Hands the finished pixels, turned upright for an EXIF `orientation` (1 when none), to
/// `result` and frees the working memory; courier_image_no_memory when the turn could not be
/// made, and the pixels then stay with the downsampler.
courier_image_status courier_downsampler_finish(courier_downsampler *d, int orientation, courier_image_result *result);

/// The size a source is scaled to: its longest side at most `max_pixel_size`, the aspect ratio
/// kept (to the nearest pixel, never below 1), never larger than the source.
void courier_fitting_size(uint32_t width, uint32_t height, uint32_t max_pixel_size, uint32_t *out_width,
                          uint32_t *out_height);

/// Checks a source's size against the limits; writes the reason into `result` when it fails.
courier_image_status courier_check_size(uint32_t width, uint32_t height, courier_image_limits limits,
                                        courier_image_result *result);

/// Turns `pixels` (`*width` × `*height` RGBA) upright for an EXIF orientation from 2 to 8,
/// swapping the sides for 5 to 8. Returns the new buffer (the old one is freed), or NULL when
/// memory could not be had (the old one is kept).
uint8_t *courier_orient(uint8_t *pixels, uint32_t *width, uint32_t *height, int orientation);

/// The orientation tag (1 to 8) of an APP1 "Exif" segment, or 1 when it has none or is malformed.
int courier_exif_orientation(const uint8_t *segment, size_t length);

/// Writes a message into `result`.
void courier_describe(courier_image_result *result, const char *format, ...) __attribute__((format(printf, 2, 3)));

courier_image_status courier_png_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                        courier_image_result *result);
courier_image_status courier_jpeg_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                         courier_image_result *result);

#endif
