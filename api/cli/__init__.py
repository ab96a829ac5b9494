"""`storygraph`: the one console command (`api.cli.entry`, one module per command here).

    storygraph up                     services, migrations, demo data, API and worker
    storygraph serve | worker         one process each
    storygraph neo4j start|stop|status
    storygraph redis start|stop|status
    storygraph down                   stop the local Neo4j and Redis this project started
    storygraph migrate
    storygraph demo load
    storygraph schema export [--check]
    storygraph review --project P | --global [--from T --to T]   (or --run ID)
    storygraph scope list | delete <scope>
    storygraph mcp [--token T]        the MCP server over stdio, for a local agent host
    storygraph search backfill [--scope S] [--reset]   vectors for hybrid search

Settings are read from the environment once, here, and passed down. Expected failures
(a missing java, a port in use, an insecure binding) print one sentence and exit 2.
"""

from api.cli.entry import main

__all__ = ["main"]
