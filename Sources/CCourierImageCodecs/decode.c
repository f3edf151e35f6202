#include <stdlib.h>
#include <string.h>

#include "codecs.h"

#if defined(__linux__) && !(__has_include(<png.h>) && __has_include(<jpeglib.h>))
#error "CourierImages decodes with libpng and libjpeg on Linux: install their headers (Debian and Ubuntu: apt-get install libpng-dev libjpeg-dev)."
#endif

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

courier_image_status courier_image_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                          courier_image_result *result) {
    memset(result, 0, sizeof *result);
    result->orientation = 1;
    if (limits.max_pixel_size == 0) limits.max_pixel_size = 1;
    int is_png = count >= 8 && memcmp(bytes, png_signature, 8) == 0;
    int is_jpeg = count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
    if (!is_png && !is_jpeg) {
        courier_describe(result, "the data is neither a PNG nor a JPEG image");
        return courier_image_unsupported;
    }
#if __has_include(<png.h>) && __has_include(<jpeglib.h>)
    courier_image_status status =
        is_png ? courier_png_decode(bytes, count, limits, result) : courier_jpeg_decode(bytes, count, limits, result);
    if (status != courier_image_ok) courier_image_release(result);
    return status;
#else
    courier_describe(result, "this build has no PNG or JPEG decoder (libpng and libjpeg were not found)");
    return courier_image_unavailable;
#endif
}

void courier_image_release(courier_image_result *result) {
    free(result->pixels);
    result->pixels = NULL;
}
