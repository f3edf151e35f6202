/// `fetch`'s request items, HTTPie's, as ``FetchCommand`` reads them: the arguments after the
/// URL and the flags that choose how their fields are sent. The shorthand
/// `courier [METHOD] URL ITEM…` reads HTTPie's `--form` and `--json` as these flags.
struct RequestItemOptions {
    /// The items, as given.
    var texts: [String] = []
    /// `--form-items` (`--form` or `-f` in the shorthand): the fields as a form.
    var form = false
    /// `-j/--json-items`: the fields as a JSON object.
    var json = false
    /// `--multipart`: the fields as multipart/form-data.
    var multipart = false

    /// The items, parsed; every malformed item is invalid input.
    func parsed() throws(CommandFailure) -> RequestItems {
        try RequestItems(texts, form: form, json: json, multipart: multipart)
    }
}

extension FetchCommand {
    /// The request-item options, as one value.
    var items: RequestItemOptions {
        RequestItemOptions(texts: itemTexts, form: formItems, json: jsonItems, multipart: multipartItems)
    }
}
