// AVBridge
