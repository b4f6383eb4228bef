/// The `http:` block of a pipeline: where a run serves its API, metrics and dashboard, and the
/// token clients must send when it is reachable from other machines.
public struct HTTPSpec: Hashable, Sendable {
    /// Where to listen (default: 127.0.0.1 on a free port).
    public var listen: Located<ListenAddress>?
    /// Where the bearer token is read from; required to listen on anything but loopback.
    public var token: SecretReference?

    /// A block.
    public init(listen: Located<ListenAddress>? = nil, token: SecretReference? = nil) {
        self.listen = listen
        self.token = token
    }

    /// The environment variable a run reads the token from when `token:` is not written (what
    /// the Kubernetes and systemd exports set).
    public static let tokenVariable = "ONAIR_API_TOKEN"

    /// Decodes `http: {listen: "0.0.0.0:8750", token: {env: ONAIR_API_TOKEN}}` of the pipeline
    /// `pipeline`; a listen address other than loopback without `token:` is a warning at
    /// `listen:` (the run still finds one in `ONAIR_API_TOKEN`, or refuses to start).
    static func decode(_ node: ConfigNode, pipeline: String, context: DecodingContext) -> HTTPSpec? {
        guard let reader = ObjectReader(node, ConfigSchema.http, subject: "http", context: context) else { return nil }
        let listen = reader.listenAddress("listen")
        let token = reader["token"].flatMap {
            SecretReference.decode(
                $0,
                of: .init(
                    subject: "http", what: "API token", plural: "tokens", field: "token",
                    variable: tokenVariable, file: "~/.config/onair/\(pipeline).token",
                    schema: ConfigSchema.apiToken), context: context)
        }
        if let listen, !listen.value.isLoopback, reader["token"] == nil {
            context.log.warning(
                "http-token", "listening on \(listen.value) lets other machines steer the run, so it needs a token", at: listen.location,
                suggestion: "add token: {env: \(tokenVariable)} (or {file: PATH}, mode 0600) to http:, "
                    + "or set \(tokenVariable) where it runs, or listen on 127.0.0.1")
        }
        return HTTPSpec(listen: listen, token: token)
    }
}
