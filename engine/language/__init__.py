"""Language utilities the domains share: time phrases, reply words, the answer language."""
