"""`deja serve`: the sidecar language server every editor talks to (see docs/protocol.md)."""
