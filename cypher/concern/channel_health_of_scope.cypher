// params: scope
MATCH (h:ChannelHealth {scope: $scope})
RETURN h.channel AS channel, h.consecutive_failures AS consecutive_failures,
       h.last_failure_at AS last_failure_at, h.last_error AS last_error
