"""The local services this project starts and watches on one machine: its own Neo4j, Redis
(single or a replicated set with sentinels) and embedding model when no URL names one, and
the worker process `storygraph up` keeps running. Only the entry points use it (`api.cli`,
`api.app`, tests and benches); the use cases never start a server."""
