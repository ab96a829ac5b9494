// The health check's round trip: answers without reading any data.
RETURN 1 AS ok
