#if __has_include(<png.h>)
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"

typedef struct {
    const uint8_t *bytes;
    size_t count;
    size_t offset;
    courier_image_result *result;
    courier_image_status status;
    courier_downsampler downsampler;
    uint8_t *row;
    uint8_t *whole;
    png_bytep *rows;
} png_job;

static void read_bytes(png_structp png, png_bytep out, size_t length) {
    png_job *job = png_get_io_ptr(png);
    if (length > job->count - job->offset) png_error(png, "the data ends before the image does");
    memcpy(out, job->bytes + job->offset, length);
    job->offset += length;
}

static void on_error(png_structp png, png_const_charp message) {
    png_job *job = png_get_error_ptr(png);
    courier_describe(job->result, "the PNG could not be read: %s", message);
    longjmp(png_jmpbuf(png), 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

courier_image_status courier_png_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                        courier_image_result *result) {
    // The job lives on the heap: what changes after setjmp must not live in registers.
    png_job *job = calloc(1, sizeof *job);
    if (!job) return courier_image_no_memory;
    job->bytes = bytes;
    job->count = count;
    job->result = result;
    job->status = courier_image_malformed;
    result->format = 1;

    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        if (png) png_destroy_read_struct(&png, NULL, NULL);
        free(job);
        courier_describe(result, "no memory for a PNG decoder");
        return courier_image_no_memory;
    }
    if (setjmp(png_jmpbuf(png))) goto done;

    png_set_read_fn(png, job, read_bytes);
    // The size is checked below, with a reason of its own; libpng's own limit would only say
    // "exceeds user limit". Ancillary chunks are capped in count and size.
    png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_set_chunk_cache_max(png, 1000);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_read_info(png, info);

    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    job->status = courier_check_size(width, height, limits, result);
    if (job->status != courier_image_ok) goto done;
    job->status = courier_image_malformed;

    int color = png_get_color_type(png, info);
    png_set_expand(png);
    if (png_get_bit_depth(png, info) == 16) png_set_scale_16(png);
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        courier_describe(result, "the PNG's pixels could not be converted to RGBA");
        job->status = courier_image_unsupported;
        goto done;
    }

    uint32_t out_width, out_height;
    courier_fitting_size(width, height, limits.max_pixel_size, &out_width, &out_height);
    if (courier_downsampler_start(&job->downsampler, width, height, out_width, out_height) != 0) goto no_memory;

    if (passes == 1) {
        job->row = malloc((size_t)width * 4);
        if (!job->row) goto no_memory;
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, job->row, NULL);
            courier_downsampler_add(&job->downsampler, job->row);
        }
    } else {
        // Interlaced: each pass fills in rows all over the image, so it is decoded whole, and
        // held to a quarter of the pixel limit.
        if ((uint64_t)width * height > limits.max_source_pixels / 4) {
            courier_describe(result, "the image is %ux%u pixels and interlaced; at most %llu pixels are decoded whole",
                             width, height, (unsigned long long)(limits.max_source_pixels / 4));
            job->status = courier_image_too_large;
            goto done;
        }
        job->whole = malloc((size_t)width * height * 4);
        job->rows = malloc(sizeof(png_bytep) * height);
        if (!job->whole || !job->rows) goto no_memory;
        for (uint32_t y = 0; y < height; y++) job->rows[y] = job->whole + (size_t)y * width * 4;
        png_read_image(png, job->rows);
        for (uint32_t y = 0; y < height; y++) courier_downsampler_add(&job->downsampler, job->rows[y]);
    }
    job->status = courier_downsampler_finish(&job->downsampler, 1, result);
    goto done;

no_memory:
    courier_describe(result, "no memory to decode a %ux%u PNG", width, height);
    job->status = courier_image_no_memory;
done:;
    courier_image_status status = job->status;
    courier_downsampler_end(&job->downsampler);
    free(job->row);
    free(job->whole);
    free(job->rows);
    png_destroy_read_struct(&png, &info, NULL);
    free(job);
    return status;
}
#endif
