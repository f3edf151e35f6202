// `fetch` and its option groups with every property at its declared default, as ArgumentParser
// makes them from a line that gives no option: the start of a line ``FetchLine`` reads.
//
// A property wrapper of ArgumentParser made by `init()` holds its definition, not a value, and
// reading it stops the process; setting it stores a value. Each property is therefore set here.
// The tests check that no property is left unset and that the result is what ArgumentParser
// makes of a bare URL, so a property added to a declaration and not here fails them.

extension FetchCommand {
    /// `fetch` with every option at its default and an empty URL.
    static func withDefaults() -> FetchCommand {
        var command = FetchCommand()
        command.url = ""
        command.itemTexts = []
        command.formItems = false
        command.jsonItems = false
        command.multipartItems = false
        command.method = nil
        command.headers = []
        command.queryItems = []
        command.body = .withDefaults()
        command.userAgent = nil
        command.referer = nil
        command.range = nil
        command.client = .withDefaults()
        command.authentication = .withDefaults()
        command.netrc = .withDefaults()
        command.cacheFolder = nil
        command.cacheMaxBytes = nil
        command.cacheMode = nil
        command.staleWhenOffline = false
        command.fail = false
        command.failWithBody = false
        command.output = nil
        command.createDirs = false
        command.outputDir = nil
        command.remoteName = false
        command.remoteHeaderName = false
        command.limit = .withDefaults()
        command.include = false
        command.headOnly = false
        command.pretty = nil
        command.dumpHeader = nil
        command.writeOut = nil
        command.compressed = false
        command.report = nil
        command.durable = false
        command.tag = nil
        command.unordered = false
        command.queue = .withDefaults()
        return command
    }
}

extension FetchBodyOptions {
    /// No body option given.
    static func withDefaults() -> FetchBodyOptions {
        var options = FetchBodyOptions()
        options.data = []
        options.dataRaw = []
        options.dataBinary = []
        options.dataURLEncode = []
        options.json = nil
        options.formFields = []
        options.files = []
        options.get = false
        options.uploadFile = nil
        return options
    }
}

extension ClientOptions {
    /// No connection option given.
    static func withDefaults() -> ClientOptions {
        var options = ClientOptions()
        options.baseURL = nil
        options.timeout = nil
        options.connectTimeout = nil
        options.maxRedirects = nil
        options.noFollow = false
        options.location = false
        options.retry = nil
        options.cookie = []
        options.cookieJar = nil
        options.cookieJSON = nil
        options.proxy = nil
        options.noProxy = nil
        options.verbose = false
        options.silent = false
        options.showError = false
        options.transport = .ahc
        options.tls = .withDefaults()
        options.insecure = false
        options.oldTLS = false
        return options
    }
}

extension TLSOptions {
    /// No TLS option given.
    static func withDefaults() -> TLSOptions {
        var options = TLSOptions()
        options.cacert = []
        options.pin = []
        options.cert = nil
        options.key = nil
        options.p12 = nil
        options.tlsMinimum = nil
        options.tls12 = false
        options.tls13 = false
        options.p12PasswordEnv = nil
        return options
    }
}

extension AuthenticationOptions {
    /// No credentials given.
    static func withDefaults() -> AuthenticationOptions {
        var options = AuthenticationOptions()
        options.user = nil
        options.bearer = nil
        return options
    }
}

extension NetrcOptions {
    /// No netrc option given.
    static func withDefaults() -> NetrcOptions {
        var options = NetrcOptions()
        options.netrc = false
        options.netrcOptional = false
        options.netrcFile = nil
        return options
    }
}

extension SizeLimitOptions {
    /// No size limit given.
    static func withDefaults() -> SizeLimitOptions {
        var options = SizeLimitOptions()
        options.maxFilesize = nil
        return options
    }
}

extension QueueOptions {
    /// No queue given.
    static func withDefaults() -> QueueOptions {
        var options = QueueOptions()
        options.path = nil
        return options
    }
}
