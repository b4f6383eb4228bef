extension ConfigSchema {
    /// A webhook secret reference.
    public static let webhookSecret = ObjectSchema(
        "webhook secret", doc: "Where the secret that signs each alert (Standard Webhooks) is read from; never the secret itself.",
        fields: [
            FieldSchema("env", .text, "Environment variable holding the secret (whsec_ and base64, as Standard Webhooks writes it)."),
            FieldSchema("file", .path, "File holding the secret (first line); it must not be readable by others (mode 0600)."),
        ])

    /// A `notify:` target.
    public static let notifyTarget = ObjectSchema(
        "notify target", doc: "Where alerts about a run's events are POSTed.",
        fields: [
            FieldSchema("url", .text, required: true, "The http or https URL alerts are POSTed to."),
            FieldSchema("events", .list(.text), required: true,
                        "Event names, '*' standing for any characters: destination.failed, input.*, run.stopped, or '*' for all but stats and libav.log."),
            FieldSchema("format", .choice(NotifyFormat.allCases.map(\.rawValue)),
                        "json (the API's event JSON), slack ({\"text\": …}) or discord ({\"content\": …}) (default json)."),
            FieldSchema("secret", .object(webhookSecret), "Sign each alert with this secret (headers webhook-id, webhook-timestamp, webhook-signature)."),
            FieldSchema("timeout", .duration(minimumMs: 100), "Give up one attempt after this long (default 15s); it is retried."),
            FieldSchema("queue", .integer(1...10_000), "Alerts waiting for this target at most; past it the oldest is dropped and counted (default 100)."),
        ],
        extensible: true)

    /// `notify:` of a pipeline or a preset file.
    static let notifyField = FieldSchema("notify", .map(.object(notifyTarget)), "Named targets that get alerts about the run's events (webhooks, Slack, Discord).")
}
