"""Signals: recorded by the review's publish stage, read time-sliced."""
