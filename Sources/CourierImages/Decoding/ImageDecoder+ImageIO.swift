#if canImport(ImageIO)
import Foundation
import ImageIO

extension ImageDecoder {
    /// ImageIO: every format the system reads, scaled while decoding and turned upright.
    static func decodeWithImageIO(_ data: Data, maxPixelSize: Int, limits: ImageLoader.Limits) throws(ImageDecodingError) -> CourierImage {
        let sourceOptions: [CFString: Any] = [kCGImageSourceShouldCache: false]
        guard let source = CGImageSourceCreateWithData(data as CFData, sourceOptions as CFDictionary),
            CGImageSourceGetCount(source) > 0, let type = CGImageSourceGetType(source)
        else {
            throw ImageDecodingError(.unsupportedFormat, "The data is not an image format this system decodes.")
        }
        guard CGImageSourceGetStatusAtIndex(source, 0) == .statusComplete else {
            throw ImageDecodingError(.malformed, "The image data is incomplete or damaged.")
        }
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any] ?? [:]
        guard let width = properties[kCGImagePropertyPixelWidth] as? Int, let height = properties[kCGImagePropertyPixelHeight] as? Int,
            width > 0, height > 0
        else {
            throw ImageDecodingError(.malformed, "The image does not state its size.")
        }
        guard width <= limits.maximumSourceSide, height <= limits.maximumSourceSide,
            width.multipliedReportingOverflow(by: height).partialValue <= limits.maximumSourcePixels
        else {
            throw ImageDecodingError(.tooLarge, "The image is \(width)x\(height) pixels, more than the limits allow.")
        }
        let thumbnailOptions: [CFString: Any] = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceThumbnailMaxPixelSize: min(maxPixelSize, max(width, height)),
        ]
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, thumbnailOptions as CFDictionary) else {
            throw ImageDecodingError(.malformed, "The image could not be decoded.")
        }
        return CourierImage(cgImage: image, sourceWidth: width, sourceHeight: height, format: CourierImage.Format(identifier: type as String))
    }
}
#endif
