#if canImport(CoreGraphics)
import CoreGraphics
#endif
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// An image decoded from a response and scaled down to the size it is shown at.
///
/// On Apple platforms it holds a `CGImage` made by ImageIO (``cgImage``, and ``uiImage`` or
/// ``nsImage``); elsewhere it holds its pixels (``bitmap``). Its size is in pixels, already
/// turned upright by the image's EXIF orientation.
public struct CourierImage: Sendable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The width in pixels of the image the server sent, as stored (before any EXIF turn).
    public let sourceWidth: Int
    /// The height in pixels of the image the server sent, as stored (before any EXIF turn).
    public let sourceHeight: Int
    /// The format the image was sent in.
    public let format: Format

    #if canImport(ImageIO)
    private let storage: Storage
    /// The decoded image.
    public var cgImage: CGImage { storage.cgImage }

    init(cgImage: CGImage, sourceWidth: Int, sourceHeight: Int, format: Format) {
        self.width = cgImage.width
        self.height = cgImage.height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.format = format
        self.storage = Storage(cgImage: cgImage)
    }

    /// A `CGImage` is immutable and may be used from any thread.
    private final class Storage: @unchecked Sendable {
        let cgImage: CGImage
        init(cgImage: CGImage) { self.cgImage = cgImage }
    }
    #else
    /// The decoded pixels.
    public let bitmap: Bitmap

    init(bitmap: Bitmap, sourceWidth: Int, sourceHeight: Int, format: Format) {
        self.width = bitmap.width
        self.height = bitmap.height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.format = format
        self.bitmap = bitmap
    }
    #endif

    #if canImport(UIKit) && canImport(ImageIO)
    /// The image as a `UIImage` of the given scale (points are pixels ÷ scale).
    public func uiImage(scale: CGFloat = 1) -> UIImage {
        UIImage(cgImage: cgImage, scale: scale, orientation: .up)
    }
    #elseif canImport(AppKit) && canImport(ImageIO)
    /// The image as an `NSImage` whose size in points is its size in pixels.
    public var nsImage: NSImage {
        NSImage(cgImage: cgImage, size: NSSize(width: width, height: height))
    }
    #endif
}

extension CourierImage {
    /// The file format of an image, named by its uniform type identifier.
    public struct Format: Hashable, Sendable, CustomStringConvertible {
        /// The uniform type identifier, such as `public.png`.
        public let identifier: String

        /// Creates a format from its uniform type identifier.
        public init(identifier: String) { self.identifier = identifier }

        /// PNG.
        public static let png = Format(identifier: "public.png")
        /// JPEG.
        public static let jpeg = Format(identifier: "public.jpeg")

        /// The identifier.
        public var description: String { identifier }
    }

    /// The pixels of an image: `height` rows of `width` pixels, top row first, each pixel four
    /// bytes (red, green, blue, alpha) with alpha not premultiplied, and no padding.
    public struct Bitmap: Hashable, Sendable {
        /// The width in pixels.
        public let width: Int
        /// The height in pixels.
        public let height: Int
        /// The bytes, `width × height × 4` of them.
        public let bytes: [UInt8]

        /// Creates a bitmap; `nil` unless `bytes` holds exactly `width × height × 4` bytes.
        public init?(width: Int, height: Int, bytes: [UInt8]) {
            guard width >= 0, height >= 0, width.multipliedReportingOverflow(by: height).overflow == false,
                bytes.count == width * height * 4
            else { return nil }
            self.width = width
            self.height = height
            self.bytes = bytes
        }

        /// The pixel at column `x` and row `y` (row 0 is the top), or `nil` outside the image.
        public func pixel(x: Int, y: Int) -> Pixel? {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
            let offset = (y * width + x) * 4
            return Pixel(red: bytes[offset], green: bytes[offset + 1], blue: bytes[offset + 2], alpha: bytes[offset + 3])
        }
    }

    /// One pixel of a ``Bitmap``; alpha is not premultiplied.
    public struct Pixel: Hashable, Sendable {
        /// Red, 0 to 255.
        public var red: UInt8
        /// Green, 0 to 255.
        public var green: UInt8
        /// Blue, 0 to 255.
        public var blue: UInt8
        /// Opacity, 0 (transparent) to 255 (opaque).
        public var alpha: UInt8

        /// Creates a pixel.
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }
}
