extension ImageLoader {
    /// How large an image may be before it is refused unread, so that a few hostile bytes
    /// cannot make a decode take gigabytes or minutes.
    ///
    /// A source is checked before any pixel is decoded. Downsampling reads a source row by row,
    /// so memory grows with the result, not the source, except for interlaced PNGs and
    /// progressive JPEGs, whose passes or scans each cover the whole image: where ImageIO is not
    /// used they are held whole (the pixels, or libjpeg's coefficients at about 3 bytes a
    /// pixel), and are therefore held to a quarter of ``maximumSourcePixels``.
    public struct Limits: Hashable, Sendable {
        /// The most pixels (width × height) a source may have; 100 million by default.
        public var maximumSourcePixels: Int = 100_000_000
        /// The longest side a source may have, in pixels; 65,535 (JPEG's own limit) by default.
        public var maximumSourceSide: Int = 65_535
        /// The most scans a progressive JPEG may have; 500 by default (an ordinary one has
        /// about ten). Applied where ImageIO is not used.
        public var maximumJPEGScans: Int = 500

        /// Creates the default limits.
        public init() {}
    }
}
