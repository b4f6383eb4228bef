// OnairConfig
