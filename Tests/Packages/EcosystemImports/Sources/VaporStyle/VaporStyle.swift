// A file of a Vapor service that calls other services through Courier, importing what such a
// file commonly imports. Nothing here is qualified with a module name: the build fails if
// Courier declares a name that one of these modules also declares.
import AsyncHTTPClient
import Courier
import CourierCachePostgres
import CourierImages
import CourierLifecycle
import CourierLimitsPostgres
import CourierOpenAPI
import CourierQueue
import CourierQueuePostgres
import CourierServerSentEvents
import CourierTesting
import CourierURLSession
import CourierWebSockets
import CourierXML
import Fluent
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import HTTPTypes
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import ServiceLifecycle
import Tracing
import Vapor

/// A route that answers with what an upstream service said.
func addProfileRoute(to app: Application, upstream: CourierClient) {
    app.get("profile") { (request: Request) async throws -> Response in
        let method: HTTPMethod = request.method
        let client: any Client = request.client
        _ = (method, client)
        let upstreamResponse = try await upstream.send(CourierRequest<CourierResponse>(path: "/profile"))
        var headers = HTTPHeaders()
        headers.add(name: .contentType, value: upstreamResponse.headers["Content-Type"] ?? "application/json")
        return Response(status: .ok, headers: headers, body: .init(data: upstreamResponse.body))
    }
}

/// Fluent's cache model and gRPC's retry policy, beside Courier's.
let fluentCacheEntry: CacheEntry? = nil
let grpcRetryPolicy: RetryPolicy? = nil
let courierRetryPolicy: CourierRetryPolicy = .none

/// swift-http-types' request, converted to Courier's and back.
func roundTrip(_ request: HTTPRequest) throws -> HTTPRequest {
    try HTTPRequest(CourierHTTPRequest(request))
}

// Every public type of Courier's library products, by its bare name. PublicNamesTests keeps
// this list complete.
private typealias UnqualifiedActivity = Activity
private typealias UnqualifiedAdaptiveConcurrency = AdaptiveConcurrency
private typealias UnqualifiedAppCachePolicy = AppCachePolicy
private typealias UnqualifiedAuthentication = Authentication
private typealias UnqualifiedBackgroundTransfers = BackgroundTransfers
private typealias UnqualifiedBatch = Batch
private typealias UnqualifiedBatchEntry = BatchEntry
private typealias UnqualifiedBatchError = BatchError
private typealias UnqualifiedBatchHandle = BatchHandle
private typealias UnqualifiedBatchProgress = BatchProgress
private typealias UnqualifiedBatchResults = BatchResults
private typealias UnqualifiedBodyEncoding = BodyEncoding
private typealias UnqualifiedCRC32 = CRC32
private typealias UnqualifiedCacheConfiguration = CacheConfiguration
private typealias UnqualifiedCachePolicy = CachePolicy
private typealias UnqualifiedCacheStatistics = CacheStatistics
private typealias UnqualifiedCacheStorage = CacheStorage
private typealias UnqualifiedCachedThenFreshResponses = CachedThenFreshResponses
private typealias UnqualifiedChain = Chain
private typealias UnqualifiedChainError = ChainError
private typealias UnqualifiedChainHooks = ChainHooks
private typealias UnqualifiedChainStep = ChainStep
private typealias UnqualifiedChainStepResult = ChainStepResult
private typealias UnqualifiedClientConfiguration = ClientConfiguration
private typealias UnqualifiedClientIdentity = ClientIdentity
private typealias UnqualifiedClientService = ClientService
private typealias UnqualifiedConnectionFailure = ConnectionFailure
private typealias UnqualifiedConnectionOverrides = ConnectionOverrides
private typealias UnqualifiedCookieFileFormat = CookieFileFormat
private typealias UnqualifiedCookieJar = CookieJar
private typealias UnqualifiedCourierAsyncHTTPClientTransport = CourierAsyncHTTPClientTransport
private typealias UnqualifiedCourierCacheEntry = CourierCacheEntry
private typealias UnqualifiedCourierClient = CourierClient
private typealias UnqualifiedCourierClientTransport = CourierClientTransport
private typealias UnqualifiedCourierCookie = CourierCookie
private typealias UnqualifiedCourierEndpoint = CourierEndpoint
private typealias UnqualifiedCourierError = CourierError
private typealias UnqualifiedCourierHTTPMethod = CourierHTTPMethod
private typealias UnqualifiedCourierHTTPRequest = CourierHTTPRequest
private typealias UnqualifiedCourierImage = CourierImage
private typealias UnqualifiedCourierParameters = CourierParameters
private typealias UnqualifiedCourierRequest = CourierRequest
private typealias UnqualifiedCourierRequestBody = CourierRequestBody
private typealias UnqualifiedCourierRequestID = CourierRequestID
private typealias UnqualifiedCourierRequestOptions = CourierRequestOptions
private typealias UnqualifiedCourierResponse = CourierResponse
private typealias UnqualifiedCourierRetryPolicy = CourierRetryPolicy
private typealias UnqualifiedCourierURLSessionTransport = CourierURLSessionTransport
private typealias UnqualifiedCourierWebSocket = CourierWebSocket
private typealias UnqualifiedCredential = Credential
private typealias UnqualifiedDecompression = Decompression
private typealias UnqualifiedDiskCacheStorage = DiskCacheStorage
private typealias UnqualifiedDownloadDestination = DownloadDestination
private typealias UnqualifiedDownloadFileName = DownloadFileName
private typealias UnqualifiedDownloadHandle = DownloadHandle
private typealias UnqualifiedDownloadOptions = DownloadOptions
private typealias UnqualifiedDownloadResult = DownloadResult
private typealias UnqualifiedDurableQueue = DurableQueue
private typealias UnqualifiedDurableRequestHandle = DurableRequestHandle
private typealias UnqualifiedErrorMapper = ErrorMapper
private typealias UnqualifiedEventHooks = EventHooks
private typealias UnqualifiedEventStream = EventStream
private typealias UnqualifiedExchangeEvent = ExchangeEvent
private typealias UnqualifiedFaultServer = FaultServer
private typealias UnqualifiedForwardProxy = ForwardProxy
private typealias UnqualifiedHTTP2StatusServer = HTTP2StatusServer
private typealias UnqualifiedHTTPDate = HTTPDate
private typealias UnqualifiedHeaderInjector = HeaderInjector
private typealias UnqualifiedHeaders = Headers
private typealias UnqualifiedHostPins = HostPins
private typealias UnqualifiedIdempotencyLedger = IdempotencyLedger
private typealias UnqualifiedImageDecodingError = ImageDecodingError
private typealias UnqualifiedImageLoader = ImageLoader
private typealias UnqualifiedInterceptor = Interceptor
private typealias UnqualifiedJSONTemplate = JSONTemplate
private typealias UnqualifiedJSONValue = JSONValue
private typealias UnqualifiedLimits = Limits
private typealias UnqualifiedLoggingInterceptor = LoggingInterceptor
private typealias UnqualifiedMemoryCacheStorage = MemoryCacheStorage
private typealias UnqualifiedMetricsObserver = MetricsObserver
private typealias UnqualifiedMinimumTLSVersion = MinimumTLSVersion
private typealias UnqualifiedMultipartForm = MultipartForm
private typealias UnqualifiedNetscapeCookieFormat = NetscapeCookieFormat
private typealias UnqualifiedOriginBudget = OriginBudget
private typealias UnqualifiedOriginPermit = OriginPermit
private typealias UnqualifiedParameterEncoding = ParameterEncoding
private typealias UnqualifiedParameterValue = ParameterValue
private typealias UnqualifiedPin = Pin
private typealias UnqualifiedPostgresCacheStorage = PostgresCacheStorage
private typealias UnqualifiedPostgresOriginBudget = PostgresOriginBudget
private typealias UnqualifiedPrintableText = PrintableText
private typealias UnqualifiedPropertyListFormat = PropertyListFormat
private typealias UnqualifiedProxy = Proxy
private typealias UnqualifiedProxyEnvironment = ProxyEnvironment
private typealias UnqualifiedPublicSuffixList = PublicSuffixList
private typealias UnqualifiedQueueConfiguration = QueueConfiguration
private typealias UnqualifiedQueueCredentialSource = QueueCredentialSource
private typealias UnqualifiedQueueCredentials = QueueCredentials
private typealias UnqualifiedQueueEvent = QueueEvent
private typealias UnqualifiedQueueLease = QueueLease
private typealias UnqualifiedQueueOutcome = QueueOutcome
private typealias UnqualifiedQueueRecord = QueueRecord
private typealias UnqualifiedQueueService = QueueService
private typealias UnqualifiedQueueStorage = QueueStorage
private typealias UnqualifiedQueuedRequest = QueuedRequest
private typealias UnqualifiedRecordedHeader = RecordedHeader
private typealias UnqualifiedRecordedRequest = RecordedRequest
private typealias UnqualifiedRecordingClock = RecordingClock
private typealias UnqualifiedRedirectHop = RedirectHop
private typealias UnqualifiedRedirectPolicy = RedirectPolicy
private typealias UnqualifiedRequestBodyWriter = RequestBodyWriter
private typealias UnqualifiedRequestDelegate = RequestDelegate
private typealias UnqualifiedRequestEvent = RequestEvent
private typealias UnqualifiedRequestHandle = RequestHandle
private typealias UnqualifiedRequestObserver = RequestObserver
private typealias UnqualifiedRequestPriority = RequestPriority
private typealias UnqualifiedRequestState = RequestState
private typealias UnqualifiedReservedPort = ReservedPort
private typealias UnqualifiedResponseBodyStream = ResponseBodyStream
private typealias UnqualifiedResponseValidator = ResponseValidator
private typealias UnqualifiedSOCKSProxy = SOCKSProxy
private typealias UnqualifiedSelfDescribingBody = SelfDescribingBody
private typealias UnqualifiedStreamedResponse = StreamedResponse
private typealias UnqualifiedSystemCompression = SystemCompression
private typealias UnqualifiedTLSFailure = TLSFailure
private typealias UnqualifiedTLSMaterial = TLSMaterial
private typealias UnqualifiedTLSPolicy = TLSPolicy
private typealias UnqualifiedTestCertificate = TestCertificate
private typealias UnqualifiedTestCertificates = TestCertificates
private typealias UnqualifiedTestGzip = TestGzip
private typealias UnqualifiedTestServer = TestServer
private typealias UnqualifiedTestServerTLS = TestServerTLS
private typealias UnqualifiedTieredCacheStorage = TieredCacheStorage
private typealias UnqualifiedTimeouts = Timeouts
private typealias UnqualifiedTiming = Timing
private typealias UnqualifiedTokenProvider = TokenProvider
private typealias UnqualifiedTrafficLedger = TrafficLedger
private typealias UnqualifiedTransferProgress = TransferProgress
private typealias UnqualifiedTransport = Transport
private typealias UnqualifiedTransportConfiguration = TransportConfiguration
private typealias UnqualifiedTrustRoots = TrustRoots
private typealias UnqualifiedURLArgumentsFilter = URLArgumentsFilter
private typealias UnqualifiedURLSessionResumeData = URLSessionResumeData
private typealias UnqualifiedWebSocketEchoServer = WebSocketEchoServer
