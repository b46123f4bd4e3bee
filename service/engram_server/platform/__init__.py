"""Cross-cutting platform concerns: configuration, auth, tenancy, telemetry, serving."""
