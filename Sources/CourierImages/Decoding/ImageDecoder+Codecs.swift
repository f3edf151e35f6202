#if !canImport(ImageIO) && canImport(CCourierImageCodecs)
import CCourierImageCodecs
import Foundation

extension ImageDecoder {
    /// libpng and libjpeg, through the decoder of the CCourierImageCodecs target.
    static func decodeWithCodecs(_ data: Data, maxPixelSize: Int, limits: ImageLoader.Limits) throws(ImageDecodingError) -> CourierImage {
        var codecLimits = courier_image_limits()
        codecLimits.max_pixel_size = UInt32(clamping: maxPixelSize)
        codecLimits.max_source_pixels = UInt64(clamping: limits.maximumSourcePixels)
        codecLimits.max_source_side = UInt32(clamping: limits.maximumSourceSide)
        codecLimits.max_jpeg_scans = UInt32(clamping: limits.maximumJPEGScans)
        var result = courier_image_result()
        let status = data.withUnsafeBytes { buffer in
            courier_image_decode(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count, codecLimits, &result)
        }
        defer { courier_image_release(&result) }
        guard status == courier_image_ok, let pixels = result.pixels else {
            let message = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw ImageDecodingError(reason(of: status), message.isEmpty ? "The image could not be decoded." : message + ".")
        }
        let width = Int(result.width)
        let height = Int(result.height)
        let bytes = Array(UnsafeBufferPointer(start: pixels, count: width * height * 4))
        guard let bitmap = CourierImage.Bitmap(width: width, height: height, bytes: bytes) else {
            throw ImageDecodingError(.malformed, "The decoder returned \(width)x\(height) pixels that do not fit their size.")
        }
        return CourierImage(
            bitmap: bitmap, sourceWidth: Int(result.source_width), sourceHeight: Int(result.source_height),
            format: result.format == 1 ? .png : .jpeg
        )
    }

    private static func reason(of status: courier_image_status) -> ImageDecodingError.Reason {
        switch status {
        case courier_image_unsupported, courier_image_unavailable: .unsupportedFormat
        case courier_image_too_large: .tooLarge
        case courier_image_no_memory: .outOfMemory
        default: .malformed
        }
    }
}
#endif
