"""storygraph graph layer."""
