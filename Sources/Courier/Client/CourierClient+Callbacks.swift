import Dispatch

/// Receives the outcome of requests started with ``CourierClient/start(_:delegate:queue:)``, for code
/// written in the delegate style of the classic kits.
///
/// The client keeps a strong reference to the delegate until the request finishes.
public protocol RequestDelegate<Value>: AnyObject, Sendable {
    /// The value type of the requests this delegate handles.
    associatedtype Value: Sendable
    /// The request finished with a value.
    func requestDidFinish(_ id: CourierRequestID, value: Value)
    /// The request failed or was cancelled.
    func requestDidFail(_ id: CourierRequestID, error: any Error)
}

extension CourierClient {
    /// Starts `request` and calls `success` or `failure` when it ends (YTKNetwork's
    /// `startWithCompletionBlockWithSuccess:failure:`).
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - queue: where the closures run; `nil` runs them on the task that finished the request.
    ///   - success: called with the decoded value and the response.
    ///   - failure: called with the error that ended the request.
    @discardableResult
    public func start<Value>(
        _ request: CourierRequest<Value>,
        queue: DispatchQueue? = nil,
        success: @escaping @Sendable (Value) -> Void,
        failure: @escaping @Sendable (any Error) -> Void
    ) -> RequestHandle<Value> {
        start(request) { _, result in
            let deliver: @Sendable () -> Void = {
                switch result {
                case .success(let value): success(value)
                case .failure(let error): failure(error)
                }
            }
            if let queue { queue.async(execute: deliver) } else { deliver() }
        }
    }

    /// Starts `request` and tells `delegate` how it ended.
    @discardableResult
    public func start<Value, Delegate: RequestDelegate>(
        _ request: CourierRequest<Value>,
        delegate: Delegate,
        queue: DispatchQueue? = nil
    ) -> RequestHandle<Value> where Delegate.Value == Value {
        start(request) { id, result in
            let deliver: @Sendable () -> Void = {
                switch result {
                case .success(let value): delegate.requestDidFinish(id, value: value)
                case .failure(let error): delegate.requestDidFail(id, error: error)
                }
            }
            if let queue { queue.async(execute: deliver) } else { deliver() }
        }
    }
}
