"""The offline stand-ins for a language model: the rule model of reviews and concern turns, and
the watch checker's. Used when no MODEL_BASE_URL is set; they sit above the domains they
imitate, and no domain imports them (see engine/llm/README.md for what they recognise)."""
