// params: round
// One round per stable id: a repeated trigger finds the round already planned. `claim` is a
// fresh token per attempt, so only the attempt that created the node sees its own token.
MERGE (r:WatchRound {id: $round.id})
ON CREATE SET r = $round
RETURN r {.*} AS r, r.claim = $round.claim AS claimed
