"""The offline rule model (seed 002 tables) used when no MODEL_BASE_URL is set; see ../README.md."""
