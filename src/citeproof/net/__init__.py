"""The only place that talks HTTP: client factory, rate limits, retries, body caps."""
