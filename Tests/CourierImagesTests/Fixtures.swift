import Foundation

/// The images of Fixtures/ (written by scripts/make-image-fixtures.py): all but the hostile
/// ones show 640x480 pixels in four quadrants, red, green / blue, white.
enum Fixture: String, CaseIterable, CustomStringConvertible {
    case jpeg = "quadrants.jpg"
    case progressiveJPEG = "quadrants-progressive.jpg"
    case orientedJPEG = "quadrants-orientation-6.jpg"
    case cmykJPEG = "quadrants-cmyk.jpg"
    case rgbaPNG = "quadrants-rgba.png"
    case interlacedPNG = "quadrants-interlaced.png"
    case sixteenBitPNG = "quadrants-16bit.png"
    case palettePNG = "quadrants-palette.png"

    var data: Data {
        get throws {
            let url = Bundle.module.url(forResource: rawValue, withExtension: nil, subdirectory: "Fixtures")!
            return try Data(contentsOf: url)
        }
    }

    var isJPEG: Bool { rawValue.hasSuffix(".jpg") }

    /// The size as stored.
    var storedSize: (width: Int, height: Int) { self == .orientedJPEG ? (480, 640) : (640, 480) }

    /// The opacity of each quadrant: top left, top right, bottom left, bottom right.
    var alphas: [UInt8] {
        switch self {
        case .rgbaPNG, .interlacedPNG: [255, 128, 255, 128]
        case .palettePNG: [255, 255, 255, 0]
        default: [255, 255, 255, 255]
        }
    }

    var description: String { rawValue }

    static let colours: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]

    static func hostile(_ name: String) throws -> Data {
        try Data(contentsOf: Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!)
    }
}
