"""The story graph's use cases (jobs/README.md; docs/rules/reviews.md): reads in `reads`,
corrections and source/result writes in `writes`, save-to-knowledge and continue-discussion in
`knowledge`.

Every function takes `Deps` and the caller's `Principal` first and checks the role and the
scope before it reads anything: a scope argument the caller may not use is FORBIDDEN,
naming no scope. The actor of a correction comes from the principal.
"""
