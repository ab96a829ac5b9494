"""storygraph jobs layer."""
