/// Media types guessed from file name extensions, for multipart file parts.
enum MediaTypes {
    /// The type of content nothing more is known about.
    static let fallback = "application/octet-stream"

    /// The media type for `filename`'s extension (compared case-insensitively), or
    /// ``fallback``.
    static func type(forFilename filename: String) -> String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return fallback }
        let pathExtension = filename[filename.index(after: dot)...].lowercased()
        return byExtension[pathExtension] ?? fallback
    }

    private static let byExtension: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "md": "text/markdown", "markdown": "text/markdown",
        "ics": "text/calendar", "vcf": "text/vcard", "js": "text/javascript", "mjs": "text/javascript",
        // Structured data
        "json": "application/json", "geojson": "application/geo+json", "jsonld": "application/ld+json",
        "xml": "application/xml", "yaml": "application/yaml", "yml": "application/yaml",
        "toml": "application/toml", "plist": "application/x-plist", "wasm": "application/wasm",
        // Documents
        "pdf": "application/pdf", "rtf": "application/rtf", "epub": "application/epub+zip",
        "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "zst": "application/zstd", "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "jar": "application/java-archive",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "heic": "image/heic", "heif": "image/heif",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "bmp": "image/bmp",
        "tif": "image/tiff", "tiff": "image/tiff",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "mid": "audio/midi", "midi": "audio/midi",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "ogv": "video/ogg",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Binaries
        "bin": fallback, "exe": fallback, "dmg": fallback, "iso": fallback,
    ]
}
