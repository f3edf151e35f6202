/// Splits `Set-Cookie` values that were joined with commas back into one value per cookie.
///
/// A comma inside a cookie appears only in an `Expires` date (`Expires=Wed, 21 Oct 2026 …`),
/// where it is followed by a space and a day number, never by `name=`. So a comma starts a new
/// cookie exactly when what follows it, up to the next `;` or `,`, is `name=value` with a name
/// that holds no space.
enum SetCookieSplitter {
    static func split(_ joined: String) -> [String] {
        var cookies: [String] = []
        var current = Substring()
        var rest = Substring(joined)
        while let comma = rest.firstIndex(of: ",") {
            let following = rest[rest.index(after: comma)...]
            current += rest[..<comma]
            if startsCookie(following) {
                cookies.append(trimmed(current))
                current = ""
            } else {
                current += ","
            }
            rest = following
        }
        current += rest
        let last = trimmed(current)
        if !last.isEmpty { cookies.append(last) }
        return cookies
    }

    private static func startsCookie(_ text: Substring) -> Bool {
        let part = text.prefix { $0 != ";" && $0 != "," }
        guard let equals = part.firstIndex(of: "=") else { return false }
        let name = part[..<equals].drop { $0 == " " || $0 == "\t" }
        return !name.isEmpty && !name.contains(" ") && !name.contains("\t")
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
