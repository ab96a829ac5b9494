"""`python -m api.cli ...`: the same command as `storygraph ...`."""

from api.cli.entry import main

main()
