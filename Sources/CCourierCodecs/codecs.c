// The system's brotli and zstd libraries, loaded with dlopen on first use. Only the few entry
// points used here are declared, with the types of the libraries' public, stable interfaces
// (brotli/decode.h and brotli/encode.h since 1.0, zstd.h's stable section since 1.4).
#include "CCourierCodecs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// MARK: - Loading

/// Opens the first of `names` that loads; NULL when none does.
static void *open_first(const char *const *names) {
    for (; *names != NULL; names++) {
        void *handle = dlopen(*names, RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) return handle;
    }
    return NULL;
}

// brotli
typedef void *(*brotli_decoder_create_fn)(void *, void *, void *);
typedef void (*brotli_decoder_destroy_fn)(void *);
typedef int (*brotli_decoder_stream_fn)(void *, size_t *, const uint8_t **, size_t *, uint8_t **, size_t *);
typedef int (*brotli_encoder_compress_fn)(int, int, int, size_t, const uint8_t *, size_t *, uint8_t *);
typedef size_t (*brotli_encoder_bound_fn)(size_t);

// zstd
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} zstd_out_buffer;
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} zstd_in_buffer;
typedef void *(*zstd_create_fn)(void);
typedef size_t (*zstd_free_fn)(void *);
typedef size_t (*zstd_init_fn)(void *);
typedef size_t (*zstd_set_parameter_fn)(void *, int, int);
typedef size_t (*zstd_decompress_stream_fn)(void *, zstd_out_buffer *, zstd_in_buffer *);
typedef unsigned (*zstd_is_error_fn)(size_t);
typedef int (*zstd_error_code_fn)(size_t);
typedef size_t (*zstd_compress_fn)(void *, size_t, const void *, size_t, int);
typedef size_t (*zstd_bound_fn)(size_t);

/// ZSTD_d_windowLogMax in zstd.h's ZSTD_dParameter, and ZSTD_error_frameParameter_windowTooLarge
/// in zstd_errors.h's ZSTD_ErrorCode.
enum { zstd_d_window_log_max = 100, zstd_error_window_too_large = 16 };

static struct {
    brotli_decoder_create_fn decoder_create;
    brotli_decoder_destroy_fn decoder_destroy;
    brotli_decoder_stream_fn decoder_stream;
    brotli_encoder_compress_fn encoder_compress;
    brotli_encoder_bound_fn encoder_bound;
} brotli;

static struct {
    zstd_create_fn create;
    zstd_free_fn free;
    zstd_init_fn init;
    zstd_set_parameter_fn set_parameter;
    zstd_decompress_stream_fn decompress_stream;
    zstd_is_error_fn is_error;
    zstd_error_code_fn error_code;
    zstd_compress_fn compress;
    zstd_bound_fn bound;
} zstd;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const brotli_decoder_names[] = {
        "libbrotlidec.so.1", "libbrotlidec.so", "libbrotlidec.1.dylib", "/opt/homebrew/lib/libbrotlidec.1.dylib", NULL,
    };
    static const char *const brotli_encoder_names[] = {
        "libbrotlienc.so.1", "libbrotlienc.so", "libbrotlienc.1.dylib", "/opt/homebrew/lib/libbrotlienc.1.dylib", NULL,
    };
    static const char *const zstd_names[] = {
        "libzstd.so.1", "libzstd.so", "libzstd.1.dylib", "/opt/homebrew/lib/libzstd.1.dylib", NULL,
    };
    void *decoder = open_first(brotli_decoder_names);
    if (decoder != NULL) {
        brotli_decoder_create_fn create = (brotli_decoder_create_fn)dlsym(decoder, "BrotliDecoderCreateInstance");
        brotli_decoder_destroy_fn destroy = (brotli_decoder_destroy_fn)dlsym(decoder, "BrotliDecoderDestroyInstance");
        brotli_decoder_stream_fn stream = (brotli_decoder_stream_fn)dlsym(decoder, "BrotliDecoderDecompressStream");
        if (create != NULL && destroy != NULL && stream != NULL) {
            brotli.decoder_create = create;
            brotli.decoder_destroy = destroy;
            brotli.decoder_stream = stream;
        }
    }
    void *encoder = open_first(brotli_encoder_names);
    if (encoder != NULL) {
        brotli_encoder_compress_fn compress = (brotli_encoder_compress_fn)dlsym(encoder, "BrotliEncoderCompress");
        brotli_encoder_bound_fn bound = (brotli_encoder_bound_fn)dlsym(encoder, "BrotliEncoderMaxCompressedSize");
        if (compress != NULL && bound != NULL) {
            brotli.encoder_compress = compress;
            brotli.encoder_bound = bound;
        }
    }
    void *library = open_first(zstd_names);
    if (library != NULL) {
        zstd_create_fn create = (zstd_create_fn)dlsym(library, "ZSTD_createDStream");
        zstd_free_fn free_stream = (zstd_free_fn)dlsym(library, "ZSTD_freeDStream");
        zstd_init_fn init = (zstd_init_fn)dlsym(library, "ZSTD_initDStream");
        zstd_set_parameter_fn set_parameter = (zstd_set_parameter_fn)dlsym(library, "ZSTD_DCtx_setParameter");
        zstd_decompress_stream_fn decompress = (zstd_decompress_stream_fn)dlsym(library, "ZSTD_decompressStream");
        zstd_is_error_fn is_error = (zstd_is_error_fn)dlsym(library, "ZSTD_isError");
        if (create != NULL && free_stream != NULL && init != NULL && set_parameter != NULL && decompress != NULL && is_error != NULL) {
            zstd.create = create;
            zstd.free = free_stream;
            zstd.init = init;
            zstd.set_parameter = set_parameter;
            zstd.decompress_stream = decompress;
            zstd.is_error = is_error;
            zstd.error_code = (zstd_error_code_fn)dlsym(library, "ZSTD_getErrorCode");
            zstd_compress_fn compress = (zstd_compress_fn)dlsym(library, "ZSTD_compress");
            zstd_bound_fn bound = (zstd_bound_fn)dlsym(library, "ZSTD_compressBound");
            if (compress != NULL && bound != NULL) {
                zstd.compress = compress;
                zstd.bound = bound;
            }
        }
    }
}

static void ensure_loaded(void) { pthread_once(&loaded, load); }

// MARK: - brotli

int courier_brotli_decoder_available(void) {
    ensure_loaded();
    return brotli.decoder_stream != NULL;
}

void *courier_brotli_decoder_create(void) {
    if (!courier_brotli_decoder_available()) return NULL;
    return brotli.decoder_create(NULL, NULL, NULL);
}

void courier_brotli_decoder_destroy(void *decoder) {
    if (decoder != NULL) brotli.decoder_destroy(decoder);
}

courier_codec_status courier_brotli_decode(
    void *decoder, const uint8_t **input, size_t *input_size, uint8_t **output, size_t *output_size) {
    // BrotliDecoderResult: 0 error, 1 success, 2 needs more input, 3 needs more output.
    switch (brotli.decoder_stream(decoder, input_size, input, output_size, output, NULL)) {
    case 1: return courier_codec_end;
    case 2: return courier_codec_more;
    case 3: return courier_codec_output_full;
    default: return courier_codec_corrupt;
    }
}

int courier_brotli_encoder_available(void) {
    ensure_loaded();
    return brotli.encoder_compress != NULL;
}

size_t courier_brotli_compress_bound(size_t size) {
    return courier_brotli_encoder_available() ? brotli.encoder_bound(size) : 0;
}

int courier_brotli_compress(int quality, const uint8_t *input, size_t input_size, uint8_t *output, size_t *output_size) {
    if (!courier_brotli_encoder_available()) return 0;
    // A 4 MiB window (lgwin 22, the library's default) in the generic mode (0).
    return brotli.encoder_compress(quality, 22, 0, input_size, input, output_size, output) != 0;
}

// MARK: - zstd

int courier_zstd_decoder_available(void) {
    ensure_loaded();
    return zstd.decompress_stream != NULL;
}

void *courier_zstd_decoder_create(int window_log_max) {
    if (!courier_zstd_decoder_available()) return NULL;
    void *stream = zstd.create();
    if (stream == NULL) return NULL;
    if (zstd.is_error(zstd.init(stream)) || zstd.is_error(zstd.set_parameter(stream, zstd_d_window_log_max, window_log_max))) {
        zstd.free(stream);
        return NULL;
    }
    return stream;
}

void courier_zstd_decoder_destroy(void *decoder) {
    if (decoder != NULL) zstd.free(decoder);
}

courier_codec_status courier_zstd_decode(
    void *decoder, const uint8_t **input, size_t *input_size, uint8_t **output, size_t *output_size) {
    zstd_in_buffer in = {*input, *input_size, 0};
    zstd_out_buffer out = {*output, *output_size, 0};
    size_t result = zstd.decompress_stream(decoder, &out, &in);
    *input += in.pos;
    *input_size -= in.pos;
    *output += out.pos;
    *output_size -= out.pos;
    if (zstd.is_error(result)) {
        if (zstd.error_code != NULL && zstd.error_code(result) == zstd_error_window_too_large) return courier_codec_window_too_large;
        return courier_codec_corrupt;
    }
    // 0: a frame was decoded and flushed whole.
    if (result == 0) return courier_codec_end;
    if (out.pos == out.size) return courier_codec_output_full;
    return courier_codec_more;
}

int courier_zstd_encoder_available(void) {
    ensure_loaded();
    return zstd.compress != NULL;
}

size_t courier_zstd_compress_bound(size_t size) {
    return courier_zstd_encoder_available() ? zstd.bound(size) : 0;
}

int courier_zstd_compress(int level, const uint8_t *input, size_t input_size, uint8_t *output, size_t *output_size) {
    if (!courier_zstd_encoder_available()) return 0;
    size_t written = zstd.compress(output, *output_size, input, input_size, level);
    if (zstd.is_error(written)) return 0;
    *output_size = written;
    return 1;
}
