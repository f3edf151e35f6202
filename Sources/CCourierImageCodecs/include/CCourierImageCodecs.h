// Decoding of PNG and JPEG into small RGBA bitmaps, for CourierImages on platforms without
// ImageIO. The source is read row by row and averaged into the requested size as it goes, so
// that a large photo never exists in memory at full size (JPEGs are also scaled while their
// blocks are decoded). Interlaced PNGs, whose rows arrive in seven passes, and progressive
// JPEGs, whose scans each refine the whole image, are the exception: they are held whole
// (pixels for the one, libjpeg's coefficients for the other), within a quarter of the pixel
// limit.
#ifndef CCOURIER_IMAGE_CODECS_H
#define CCOURIER_IMAGE_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The outcome of a decode.
typedef enum {
    courier_image_ok = 0,
    /// Neither a PNG nor a JPEG signature, or a kind of PNG or JPEG this decoder cannot read.
    courier_image_unsupported = 1,
    /// The bytes break the format's rules or end too soon.
    courier_image_malformed = 2,
    /// The image is wider, taller or has more pixels than allowed, or more JPEG scans.
    courier_image_too_large = 3,
    /// Memory could not be had.
    courier_image_no_memory = 4,
    /// This build has no decoder for images (no libpng or libjpeg).
    courier_image_unavailable = 5,
} courier_image_status;

/// The limits a decode works within, and the size it aims for.
typedef struct {
    /// The longest side of the result, in pixels (at least 1). A smaller image keeps its size.
    uint32_t max_pixel_size;
    /// The most pixels (width × height) a source may have; an interlaced PNG or a progressive
    /// JPEG, which is held whole, a quarter of it.
    uint64_t max_source_pixels;
    /// The longest side a source may have.
    uint32_t max_source_side;
    /// The most scans a progressive JPEG may have.
    uint32_t max_jpeg_scans;
} courier_image_limits;

/// A decoded image. `pixels` holds `height` rows of `width` RGBA pixels, 8 bits per channel,
/// straight (not premultiplied) alpha, top row first, with no padding; release it with
/// courier_image_release.
typedef struct {
    /// 1 for PNG, 2 for JPEG.
    int format;
    uint32_t source_width;
    uint32_t source_height;
    uint32_t width;
    uint32_t height;
    /// The EXIF orientation (1 to 8) the result has already been turned by; 1 when none.
    int orientation;
    uint8_t *pixels;
    /// What went wrong, as text, when the status is not courier_image_ok.
    char message[160];
} courier_image_result;

/// Decodes `count` bytes of PNG or JPEG into `result`, scaled down so that neither side
/// exceeds `limits.max_pixel_size`, keeping the aspect ratio. A JPEG's EXIF orientation is
/// applied, so the result is upright.
courier_image_status courier_image_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                          courier_image_result *result);

/// Frees what a decode allocated; safe to call on a result that holds nothing.
void courier_image_release(courier_image_result *result);

#ifdef __cplusplus
}
#endif

#endif
