#if __has_include(<jpeglib.h>)
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

#include "codecs.h"

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
} failure_manager;

typedef struct {
    struct jpeg_decompress_struct info;
    failure_manager failure;
    struct jpeg_progress_mgr progress;
    uint32_t max_scans;
    courier_image_result *result;
    courier_image_status status;
    int started;
    courier_downsampler downsampler;
    uint8_t *row;
    uint8_t *rgba;
} jpeg_job;

static jpeg_job *job_of(j_common_ptr info) {
    // The decompressor is the job's first member.
    return (jpeg_job *)(void *)info;
}

static void on_error_exit(j_common_ptr info) {
    jpeg_job *job = job_of(info);
    char text[JMSG_LENGTH_MAX];
    (*info->err->format_message)(info, text);
    courier_describe(job->result, "the JPEG could not be read: %s", text);
    longjmp(job->failure.jump, 1);
}

static void on_message(j_common_ptr info, int level) {
    // A warning that the data ended early would otherwise give grey rows: it is an error here.
    // Other warnings (stray bytes between markers, which cameras write) are let through.
    if (level == -1 && info->err->msg_code == JWRN_JPEG_EOF) {
        jpeg_job *job = job_of(info);
        courier_describe(job->result, "the JPEG could not be read: the data ends before the image does");
        longjmp(job->failure.jump, 1);
    }
}

static void on_output(j_common_ptr info) { (void)info; }

static void on_progress(j_common_ptr info) {
    jpeg_job *job = job_of(info);
    if (job->info.input_scan_number > (int)job->max_scans) {
        courier_describe(job->result, "the JPEG has more than %u scans", job->max_scans);
        job->status = courier_image_too_large;
        longjmp(job->failure.jump, 1);
    }
}

static int orientation_of(j_decompress_ptr info) {
    for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1) {
            int orientation = courier_exif_orientation(marker->data, marker->data_length);
            if (orientation != 1) return orientation;
        }
    }
    return 1;
}

courier_image_status courier_jpeg_decode(const uint8_t *bytes, size_t count, courier_image_limits limits,
                                         courier_image_result *result) {
    // The job lives on the heap: what changes after setjmp must not live in registers.
    jpeg_job *job = calloc(1, sizeof *job);
    if (!job) return courier_image_no_memory;
    job->result = result;
    job->status = courier_image_malformed;
    job->max_scans = limits.max_jpeg_scans;
    result->format = 2;

    job->info.err = jpeg_std_error(&job->failure.base);
    job->failure.base.error_exit = on_error_exit;
    job->failure.base.emit_message = on_message;
    job->failure.base.output_message = on_output;
    if (setjmp(job->failure.jump)) goto done;
    jpeg_create_decompress(&job->info);
    job->started = 1;
    job->progress.progress_monitor = on_progress;
    job->info.progress = &job->progress;
    jpeg_mem_src(&job->info, bytes, (unsigned long)count);
    jpeg_save_markers(&job->info, JPEG_APP0 + 1, 0xFFFF);
    if (jpeg_read_header(&job->info, TRUE) != JPEG_HEADER_OK) {
        courier_describe(result, "the JPEG holds tables but no image");
        goto done;
    }

    uint32_t width = job->info.image_width, height = job->info.image_height;
    job->status = courier_check_size(width, height, limits, result);
    if (job->status != courier_image_ok) goto done;
    job->status = courier_image_malformed;
    // A progressive JPEG, or one whose colours come in scans of their own, is held whole in
    // libjpeg's coefficient buffer (about 3 bytes a pixel with the usual 4:2:0 colour, 6 with
    // none) until its last scan: a quarter of the pixel limit, as for interlaced PNGs.
    if ((job->info.progressive_mode || job->info.comps_in_scan < job->info.num_components) &&
        (uint64_t)width * height > limits.max_source_pixels / 4) {
        courier_describe(result, "the image is %ux%u pixels in several scans; at most %llu pixels are decoded whole",
                         width, height, (unsigned long long)(limits.max_source_pixels / 4));
        job->status = courier_image_too_large;
        goto done;
    }

    uint32_t out_width, out_height;
    courier_fitting_size(width, height, limits.max_pixel_size, &out_width, &out_height);
    // libjpeg scales by 1/2, 1/4 or 1/8 while it decodes, for a fraction of the work: the
    // largest of those that still leaves at least the result's size is taken.
    unsigned int denominator = 8;
    while (denominator > 1 && ((width + denominator - 1) / denominator < out_width ||
                               (height + denominator - 1) / denominator < out_height)) {
        denominator /= 2;
    }
    int cmyk = job->info.jpeg_color_space == JCS_CMYK || job->info.jpeg_color_space == JCS_YCCK;
    job->info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    job->info.scale_num = 1;
    job->info.scale_denom = denominator;
    jpeg_start_decompress(&job->info);

    uint32_t scaled_width = job->info.output_width, scaled_height = job->info.output_height;
    int components = job->info.output_components;
    if ((cmyk && components != 4) || (!cmyk && components != 3) || scaled_width < out_width ||
        scaled_height < out_height) {
        courier_describe(result, "the JPEG's pixels could not be converted to RGBA");
        job->status = courier_image_unsupported;
        goto done;
    }
    if (courier_downsampler_start(&job->downsampler, scaled_width, scaled_height, out_width, out_height) != 0) {
        goto no_memory;
    }
    job->row = malloc((size_t)scaled_width * components);
    job->rgba = malloc((size_t)scaled_width * 4);
    if (!job->row || !job->rgba) goto no_memory;
    // Adobe's CMYK JPEGs store ink inverted (255 is none); others store it as it is.
    int inverted = job->info.saw_Adobe_marker;
    while (job->info.output_scanline < scaled_height) {
        JSAMPROW row = job->row;
        if (jpeg_read_scanlines(&job->info, &row, 1) != 1) {
            courier_describe(result, "the JPEG could not be read: the data ends before the image does");
            goto done;
        }
        for (uint32_t x = 0; x < scaled_width; x++) {
            uint8_t *out = job->rgba + (size_t)x * 4;
            if (cmyk) {
                const uint8_t *ink = job->row + (size_t)x * 4;
                for (int channel = 0; channel < 3; channel++) {
                    unsigned int c = inverted ? ink[channel] : 255u - ink[channel];
                    unsigned int k = inverted ? ink[3] : 255u - ink[3];
                    out[channel] = (uint8_t)((c * k + 127) / 255);
                }
            } else {
                memcpy(out, job->row + (size_t)x * 3, 3);
            }
            out[3] = 0xFF;
        }
        courier_downsampler_add(&job->downsampler, job->rgba);
    }

    job->status = courier_downsampler_finish(&job->downsampler, orientation_of(&job->info), result);
    goto done;

no_memory:
    courier_describe(result, "no memory to decode a %ux%u JPEG", width, height);
    job->status = courier_image_no_memory;
done:;
    courier_image_status status = job->status;
    courier_downsampler_end(&job->downsampler);
    free(job->row);
    free(job->rgba);
    if (job->started) jpeg_destroy_decompress(&job->info);
    free(job);
    return status;
}
#endif
