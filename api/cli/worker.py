"""`storygraph worker`: one arq worker."""

from __future__ import annotations

import argparse

from engine.settings import Settings
from jobs.logs import configure_logging
from jobs.worker import run


def command(args: argparse.Namespace, settings: Settings) -> None:
    configure_logging(settings.log_level, settings.log_format)
    run(settings)
