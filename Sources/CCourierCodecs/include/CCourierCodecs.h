// Brotli (RFC 7932) and Zstandard (RFC 8878) streams, undone and made with the system's own
// libraries: libbrotlidec and libbrotlienc (Debian's libbrotli1) and libzstd (libzstd1). They
// are loaded when first asked for, not linked, so that building Courier needs no development
// package and a machine without them still runs it: there, these codings are neither asked
// for nor undone, and a body in one is delivered as received.
//
// Every function is safe to call from any thread; a decoder is used by one thread at a time.
#ifndef CCOURIER_CODECS_H
#define CCOURIER_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What one step of a decoder came to.
typedef enum {
    /// The input was taken, as far as the output had room; more input is welcome.
    courier_codec_more = 0,
    /// The compressed stream (or, for zstd, a frame) ended.
    courier_codec_end = 1,
    /// The output is full: call again with more room.
    courier_codec_output_full = 2,
    /// The input is not what the coding says.
    courier_codec_corrupt = 3,
    /// The input needs a larger window than the decoder was allowed (zstd).
    courier_codec_window_too_large = 4,
} courier_codec_status;

/// Whether the system's brotli decoder could be loaded.
int courier_brotli_decoder_available(void);
/// A new brotli decoder, or NULL when none can be made.
void *courier_brotli_decoder_create(void);
void courier_brotli_decoder_destroy(void *decoder);
/// Decodes from `*input` (advanced past what was taken, `*input_size` lowered to match) into
/// `*output` (advanced past what was written, `*output_size` lowered to match).
courier_codec_status courier_brotli_decode(
    void *decoder, const uint8_t **input, size_t *input_size, uint8_t **output, size_t *output_size);

/// Whether the system's zstd decoder could be loaded.
int courier_zstd_decoder_available(void);
/// A new zstd decoder that refuses frames whose window is larger than 2^`window_log_max`
/// bytes, or NULL when none can be made.
void *courier_zstd_decoder_create(int window_log_max);
void courier_zstd_decoder_destroy(void *decoder);
/// As `courier_brotli_decode`; `courier_codec_end` when a frame ended and was flushed whole
/// (another frame may follow).
courier_codec_status courier_zstd_decode(
    void *decoder, const uint8_t **input, size_t *input_size, uint8_t **output, size_t *output_size);

/// Whether the system's brotli and zstd encoders could be loaded (for servers and tests).
int courier_brotli_encoder_available(void);
int courier_zstd_encoder_available(void);
/// The most bytes `size` input bytes can take once compressed; 0 when unknown.
size_t courier_brotli_compress_bound(size_t size);
size_t courier_zstd_compress_bound(size_t size);
/// Compresses `input` whole into `output` (of `*output_size` bytes, set to the bytes written);
/// returns 1 on success.
int courier_brotli_compress(int quality, const uint8_t *input, size_t input_size, uint8_t *output, size_t *output_size);
int courier_zstd_compress(int level, const uint8_t *input, size_t input_size, uint8_t *output, size_t *output_size);

#ifdef __cplusplus
}
#endif

#endif
