// params: scope, channel, consecutive_failures, last_failure_at, last_error
// Store one channel's delivery health after a send (unreachable → fall back; docs/rules/concerns.md).
MERGE (h:ChannelHealth {scope: $scope, channel: $channel})
SET h.consecutive_failures = $consecutive_failures,
    h.last_failure_at = $last_failure_at,
    h.last_error = $last_error
RETURN h.channel AS channel
