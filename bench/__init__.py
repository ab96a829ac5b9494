"""Benchmarks: run each as `.venv/bin/python -m bench.<name>` against the dev services."""
