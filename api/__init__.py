"""storygraph api layer."""
