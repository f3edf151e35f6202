#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"

int courier_downsampler_start(courier_downsampler *d, uint32_t source_width, uint32_t source_height, uint32_t width,
                              uint32_t height) {
    memset(d, 0, sizeof *d);
    d->source_width = source_width;
    d->source_height = source_height;
    d->width = width;
    d->height = height;
    d->column_of = malloc(sizeof(uint32_t) * source_width);
    d->columns_in = calloc(width, sizeof(uint32_t));
    d->sums = calloc((size_t)width * 4, sizeof(uint64_t));
    d->pixels = malloc((size_t)width * height * 4);
    if (!d->column_of || !d->columns_in || !d->sums || !d->pixels) {
        courier_downsampler_end(d);
        return -1;
    }
    for (uint32_t x = 0; x < source_width; x++) {
        uint32_t column = (uint32_t)(((uint64_t)x * width) / source_width);
        d->column_of[x] = column;
        d->columns_in[column]++;
    }
    return 0;
}

static uint32_t row_of(const courier_downsampler *d, uint32_t source_row) {
    return (uint32_t)(((uint64_t)source_row * d->height) / d->source_height);
}

void courier_downsampler_add(courier_downsampler *d, const uint8_t *row) {
    if (d->next_source_row >= d->source_height) return;
    uint64_t *sums = d->sums;
    for (uint32_t x = 0; x < d->source_width; x++) {
        const uint8_t *pixel = row + (size_t)x * 4;
        uint64_t *sum = sums + (size_t)d->column_of[x] * 4;
        uint32_t alpha = pixel[3];
        sum[0] += (uint64_t)pixel[0] * alpha;
        sum[1] += (uint64_t)pixel[1] * alpha;
        sum[2] += (uint64_t)pixel[2] * alpha;
        sum[3] += alpha;
    }
    d->rows_summed++;
    d->next_source_row++;
    if (d->next_source_row < d->source_height && row_of(d, d->next_source_row) == d->row) return;

    uint8_t *out = d->pixels + (size_t)d->row * d->width * 4;
    for (uint32_t x = 0; x < d->width; x++) {
        uint64_t *sum = sums + (size_t)x * 4;
        uint64_t count = (uint64_t)d->columns_in[x] * d->rows_summed;
        uint64_t alpha = sum[3];
        for (int channel = 0; channel < 3; channel++) {
            out[x * 4 + channel] = alpha == 0 ? 0 : (uint8_t)((sum[channel] + alpha / 2) / alpha);
        }
        out[x * 4 + 3] = (uint8_t)((alpha + count / 2) / count);
    }
    memset(sums, 0, sizeof(uint64_t) * 4 * d->width);
    d->rows_summed = 0;
    d->row++;
}

void courier_downsampler_end(courier_downsampler *d) {
    free(d->column_of);
    free(d->columns_in);
    free(d->sums);
    free(d->pixels);
    d->column_of = NULL;
    d->columns_in = NULL;
    d->sums = NULL;
    d->pixels = NULL;
}

courier_image_status courier_downsampler_finish(courier_downsampler *d, int orientation, courier_image_result *result) {
    uint32_t width = d->width, height = d->height;
    uint8_t *pixels = courier_orient(d->pixels, &width, &height, orientation);
    if (!pixels) {
        courier_describe(result, "no memory to turn a %ux%u image upright", width, height);
        return courier_image_no_memory;
    }
    d->pixels = NULL;
    courier_downsampler_end(d);
    result->orientation = orientation < 2 || orientation > 8 ? 1 : orientation;
    result->width = width;
    result->height = height;
    result->pixels = pixels;
    return courier_image_ok;
}

void courier_fitting_size(uint32_t width, uint32_t height, uint32_t max_pixel_size, uint32_t *out_width,
                          uint32_t *out_height) {
    uint32_t longest = width > height ? width : height;
    if (max_pixel_size == 0) max_pixel_size = 1;
    if (longest <= max_pixel_size) {
        *out_width = width;
        *out_height = height;
        return;
    }
    uint64_t scaled_width = ((uint64_t)width * max_pixel_size + longest / 2) / longest;
    uint64_t scaled_height = ((uint64_t)height * max_pixel_size + longest / 2) / longest;
    *out_width = scaled_width == 0 ? 1 : (uint32_t)scaled_width;
    *out_height = scaled_height == 0 ? 1 : (uint32_t)scaled_height;
}

courier_image_status courier_check_size(uint32_t width, uint32_t height, courier_image_limits limits,
                                        courier_image_result *result) {
    result->source_width = width;
    result->source_height = height;
    if (width == 0 || height == 0) {
        courier_describe(result, "the image claims a size of %ux%u pixels", width, height);
        return courier_image_malformed;
    }
    if (width > limits.max_source_side || height > limits.max_source_side) {
        courier_describe(result, "the image is %ux%u pixels; a side may be at most %u", width, height,
                         limits.max_source_side);
        return courier_image_too_large;
    }
    if ((uint64_t)width * height > limits.max_source_pixels) {
        courier_describe(result, "the image is %ux%u pixels; at most %llu pixels are decoded", width, height,
                         (unsigned long long)limits.max_source_pixels);
        return courier_image_too_large;
    }
    return courier_image_ok;
}

uint8_t *courier_orient(uint8_t *pixels, uint32_t *width, uint32_t *height, int orientation) {
    if (orientation < 2 || orientation > 8) return pixels;
    uint32_t w = *width, h = *height;
    int swaps = orientation >= 5;
    uint32_t out_width = swaps ? h : w, out_height = swaps ? w : h;
    uint8_t *out = malloc((size_t)w * h * 4);
    if (!out) return NULL;
    for (uint32_t y = 0; y < out_height; y++) {
        for (uint32_t x = 0; x < out_width; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break;
            }
            memcpy(out + ((size_t)y * out_width + x) * 4, pixels + ((size_t)sy * w + sx) * 4, 4);
        }
    }
    free(pixels);
    *width = out_width;
    *height = out_height;
    return out;
}

static uint32_t read_uint(const uint8_t *p, int bytes, int big_endian) {
    uint32_t value = 0;
    for (int i = 0; i < bytes; i++) {
        int index = big_endian ? i : bytes - 1 - i;
        value = (value << 8) | p[index];
    }
    return value;
}

int courier_exif_orientation(const uint8_t *segment, size_t length) {
    // "Exif\0\0", then a TIFF header: byte order, 42, the offset of the first directory.
    if (length < 14 || memcmp(segment, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = segment + 6;
    size_t size = length - 6;
    int big_endian;
    if (tiff[0] == 'M' && tiff[1] == 'M') big_endian = 1;
    else if (tiff[0] == 'I' && tiff[1] == 'I') big_endian = 0;
    else return 1;
    if (read_uint(tiff + 2, 2, big_endian) != 42) return 1;
    uint32_t directory = read_uint(tiff + 4, 4, big_endian);
    if (directory > size || size - directory < 2) return 1;
    uint32_t entries = read_uint(tiff + directory, 2, big_endian);
    for (uint32_t i = 0; i < entries; i++) {
        size_t at = (size_t)directory + 2 + (size_t)i * 12;
        if (at + 12 > size) return 1;
        const uint8_t *entry = tiff + at;
        // Tag 0x0112, type SHORT (3), one value, held in the entry itself.
        if (read_uint(entry, 2, big_endian) != 0x0112) continue;
        if (read_uint(entry + 2, 2, big_endian) != 3 || read_uint(entry + 4, 4, big_endian) != 1) return 1;
        uint32_t value = read_uint(entry + 8, 2, big_endian);
        return value >= 1 && value <= 8 ? (int)value : 1;
    }
    return 1;
}

void courier_describe(courier_image_result *result, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(result->message, sizeof result->message, format, arguments);
    va_end(arguments);
}
