import ArgumentParser

/// `fetch`'s request items, HTTPie's: the arguments after the URL and the flags that choose how
/// their fields are sent. The shorthand `courier [METHOD] URL ITEM…` reads HTTPie's `--form` and
/// `--json` as these flags.
struct RequestItemOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "Request items: Name:value (header), Name: (no such header), Name; (empty header), name==value (query item), name=value (JSON string field), name:=JSON, name@PATH[;type=MIME] (file; makes the body multipart), name=@PATH (the file's text), name:=@PATH (the file's JSON); \\ escapes : = @ ;.",
            valueName: "item"))
    var texts: [String] = []

    @Flag(name: [.customShort("f"), .customLong("form-items")], help: "Send the request items' fields as application/x-www-form-urlencoded (multipart/form-data with a file item); the shorthand also takes --form.")
    var form = false

    @Flag(name: [.customShort("j"), .customLong("json-items")], help: "Send the fields as a JSON object (the default), with JSON Accept and Content-Type even without fields; the shorthand also takes --json.")
    var json = false

    @Flag(help: "Send the request items' fields as multipart/form-data, with or without a file item.")
    var multipart = false

    /// The items, parsed; every malformed item is invalid input.
    func parsed() throws(CommandFailure) -> RequestItems {
        try RequestItems(texts, form: form, json: json, multipart: multipart)
    }
}
