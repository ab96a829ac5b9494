"""arq task functions: thin, idempotent shells that load, call the engine, persist."""
