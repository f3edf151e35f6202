import Courier
import CourierImages
import Foundation
import Testing

@Suite("Image decoding")
struct ImageDecodingTests {
    @Test("Every fixture decodes upright, scaled to fit, with each quadrant's colour where it belongs", arguments: Fixture.allCases)
    func everyFixtureDecodesUprightAndScaled(_ fixture: Fixture) async throws {
        let image = try await ImageLoader.image(from: try fixture.data, maxPixelSize: 100)
        #expect(image.width == 100)
        #expect(image.height == 75)
        #expect(image.sourceWidth == fixture.storedSize.width)
        #expect(image.sourceHeight == fixture.storedSize.height)
        #expect(image.format == (fixture.isJPEG ? .jpeg : .png))
        #if !canImport(ImageIO)
        let tolerance = fixture.isJPEG ? 4 : 0
        let centres = [(25, 18), (75, 18), (25, 56), (75, 56)]
        for (index, centre) in centres.enumerated() {
            let pixel = try #require(image.bitmap.pixel(x: centre.0, y: centre.1))
            let alpha = fixture.alphas[index]
            #expect(pixel.alpha == alpha, "quadrant \(index)")
            guard alpha > 0 else { continue }
            let (red, green, blue) = Fixture.colours[index]
            for (got, wanted) in [(pixel.red, red), (pixel.green, green), (pixel.blue, blue)] {
                #expect(abs(Int(got) - Int(wanted)) <= tolerance, "quadrant \(index): \(pixel)")
            }
        }
        #endif
    }

    @Test("An image smaller than the size asked for keeps its size and its exact pixels")
    func aSmallerImageKeepsItsSize() async throws {
        let image = try await ImageLoader.image(from: try Fixture.rgbaPNG.data, maxPixelSize: 2000)
        #expect(image.width == 640 && image.height == 480)
        #if !canImport(ImageIO)
        #expect(image.bitmap.pixel(x: 0, y: 0) == CourierImage.Pixel(red: 255, green: 0, blue: 0))
        #expect(image.bitmap.pixel(x: 320, y: 0) == CourierImage.Pixel(red: 0, green: 255, blue: 0, alpha: 128))
        #expect(image.bitmap.pixel(x: 639, y: 479) == CourierImage.Pixel(red: 255, green: 255, blue: 255, alpha: 128))
        #expect(image.bitmap.pixel(x: 640, y: 0) == nil)
        #expect(image.bitmap.bytes.count == 640 * 480 * 4)
        #endif
    }

    #if !canImport(ImageIO)
    @Test("Scaling to one pixel averages every pixel, colours weighted by their opacity")
    func scalingAveragesColoursByOpacity() async throws {
        let image = try await ImageLoader.image(from: try Fixture.rgbaPNG.data, maxPixelSize: 1)
        #expect(image.width == 1 && image.height == 1)
        // Four equal quadrants: the weighted mean of each channel, rounded to the nearest.
        let alphas = Fixture.rgbaPNG.alphas.map(Int.init)
        let alphaSum = alphas.reduce(0, +)
        func channel(_ index: Int) -> UInt8 {
            let values = Fixture.colours.map { [$0.0, $0.1, $0.2][index] }
            let weighted = zip(values, alphas).map { Int($0.0) * $0.1 }.reduce(0, +)
            return UInt8((weighted + alphaSum / 2) / alphaSum)
        }
        let expected = CourierImage.Pixel(red: channel(0), green: channel(1), blue: channel(2), alpha: UInt8((alphaSum + 2) / 4))
        #expect(image.bitmap.pixel(x: 0, y: 0) == expected)
        // A plain mean would have darkened red by the half-transparent green and white.
        #expect(expected.red == 128 && expected.alpha == 192)
    }
    #endif

    @Test("A JPEG's EXIF orientation is applied: the stored portrait comes out as the landscape it shows")
    func exifOrientationIsApplied() async throws {
        let image = try await ImageLoader.image(from: try Fixture.orientedJPEG.data, maxPixelSize: 640)
        #expect(image.sourceWidth == 480 && image.sourceHeight == 640)
        #expect(image.width == 640 && image.height == 480)
    }

    @Test("A source past the size limits is refused before it is decoded")
    func sourcesPastTheLimitsAreRefused() async throws {
        try await expectFailure(.tooLarge, decoding: try Fixture.hostile("huge.png"))
        var limits = ImageLoader.Limits()
        limits.maximumSourcePixels = 1000
        try await expectFailure(.tooLarge, decoding: try Fixture.jpeg.data, limits: limits)
        limits = ImageLoader.Limits()
        limits.maximumSourceSide = 600
        try await expectFailure(.tooLarge, decoding: try Fixture.rgbaPNG.data, limits: limits)
    }

    #if !canImport(ImageIO)
    @Test(
        "An interlaced PNG or a progressive JPEG, held whole, is held to a quarter of the pixel limit; a plain one is not",
        arguments: [(Fixture.interlacedPNG, Fixture.rgbaPNG), (.progressiveJPEG, .jpeg)]
    )
    func imagesHeldWholeHaveAQuarterOfThePixelLimit(_ whole: Fixture, _ plain: Fixture) async throws {
        var limits = ImageLoader.Limits()
        limits.maximumSourcePixels = 640 * 480 * 2
        try await expectFailure(.tooLarge, decoding: try whole.data, limits: limits)
        #expect(try await ImageLoader.image(from: try plain.data, maxPixelSize: 64, limits: limits).width == 64)
        limits.maximumSourcePixels = 640 * 480 * 4
        #expect(try await ImageLoader.image(from: try whole.data, maxPixelSize: 64, limits: limits).width == 64)
    }

    @Test("A progressive JPEG with more scans than allowed is refused")
    func tooManyScansAreRefused() async throws {
        var limits = ImageLoader.Limits()
        limits.maximumJPEGScans = 2
        try await expectFailure(.tooLarge, decoding: try Fixture.progressiveJPEG.data, limits: limits)
        let baseline = try await ImageLoader.image(from: try Fixture.jpeg.data, maxPixelSize: 32, limits: limits)
        #expect(baseline.width == 32)
    }
    #endif

    @Test("Data cut short is malformed, whatever the format", arguments: [Fixture.jpeg, .progressiveJPEG, .rgbaPNG, .interlacedPNG])
    func truncatedDataIsMalformed(_ fixture: Fixture) async throws {
        let data = try fixture.data
        for fraction in [0.2, 0.5, 0.9] {
            try await expectFailure(.malformed, decoding: data.prefix(Int(Double(data.count) * fraction)))
        }
    }

    @Test("Bytes that are no image are an unsupported format")
    func nonImagesAreUnsupported() async throws {
        try await expectFailure(.unsupportedFormat, decoding: Data())
        try await expectFailure(.unsupportedFormat, decoding: Data("<html>not an image</html>".utf8))
        try await expectFailure(.unsupportedFormat, decoding: Data([0x89, 0x50, 0x4E]))
    }

    @Test("A size of less than one pixel is refused as a bad argument", arguments: [0, -1, Int.min])
    func aSizeBelowOneIsRefused(_ size: Int) async throws {
        let error = await #expect(throws: CourierError.self) {
            _ = try await ImageLoader.image(from: try Fixture.jpeg.data, maxPixelSize: size)
        }
        #expect(error?.kind == .invalidConfiguration)
    }

    @Test("Damaged images never crash or hang: each is an image within the size or a decoding error")
    func damagedImagesFailCleanly() async throws {
        // Damage spread over each file by fixed strides, so that a failure can be replayed.
        for fixture in Fixture.allCases {
            let original = try fixture.data
            for round in 0..<150 {
                var bytes = [UInt8](original)
                for change in 0..<(1 + round % 8) {
                    bytes[(round * 7_919 + change * 104_729) % bytes.count] = UInt8(truncatingIfNeeded: round * 31 + change * 97)
                }
                let length = round % 2 == 0 ? bytes.count : (round * 6_007) % bytes.count
                let size = 1 + (round * 13) % 200
                do {
                    let image = try await ImageLoader.image(from: Data(bytes.prefix(length)), maxPixelSize: size)
                    #expect(max(image.width, image.height) <= size && min(image.width, image.height) >= 1)
                } catch {
                    #expect(error.kind == .decodingFailed)
                    #expect(error.underlyingError is ImageDecodingError)
                }
            }
        }
    }

    private func expectFailure(
        _ reason: ImageDecodingError.Reason, decoding data: Data, limits: ImageLoader.Limits = ImageLoader.Limits(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let error = await #expect(throws: CourierError.self, sourceLocation: sourceLocation) {
            _ = try await ImageLoader.image(from: data, maxPixelSize: 100, limits: limits)
        }
        #expect(error?.kind == .decodingFailed, sourceLocation: sourceLocation)
        let underlying = error?.underlyingError as? ImageDecodingError
        #expect(underlying?.reason == reason, "\(String(describing: error))", sourceLocation: sourceLocation)
    }
}
