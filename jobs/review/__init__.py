"""The review (supervision) use cases (docs/rules/reviews.md): the shape every domain follows
(jobs/README.md). Each takes `(deps, principal, ...)`; the worker's own jobs pass `WORKER`.

- `runs`: start, continue, pause, cancel a review; the heartbeat's automatic check.
- `plans`: save, delete, run a plan now; the heartbeat app switch.
- `reads`: app settings, plans, runs (keyset-paged), one run, activity, a run's progress.
- `execution`: a run's staged execution (the `supervise` job); `heartbeat`: plans' tick
  and report; `recovery`: a starting worker's clean-up and the reconciler's review case.
- `common`: the review repositories, timings and caller checks built from `Deps`;
  `model`, `pool`: the model requests of each stage and the FIFO pool they wait in.
"""
