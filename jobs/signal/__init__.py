"""Signals (issue 28): recorded by the review's publish stage, read time-sliced."""
