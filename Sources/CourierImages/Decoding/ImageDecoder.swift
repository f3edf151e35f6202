import Foundation

/// Turns bytes into a ``CourierImage`` with the platform's decoder.
enum ImageDecoder {
    static func decode(_ data: Data, maxPixelSize: Int, limits: ImageLoader.Limits) throws(ImageDecodingError) -> CourierImage {
        #if canImport(ImageIO)
        try decodeWithImageIO(data, maxPixelSize: maxPixelSize, limits: limits)
        #elseif canImport(CCourierImageCodecs)
        try decodeWithCodecs(data, maxPixelSize: maxPixelSize, limits: limits)
        #else
        throw ImageDecodingError(.unsupportedFormat, "Images are not decoded on this platform.")
        #endif
    }
}
