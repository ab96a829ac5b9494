// Running totals of the cost ledger per stage and model (the /metrics counters read these
// few nodes; review/run_write adds to them in the run's own transaction).
CREATE CONSTRAINT model_call_total IF NOT EXISTS FOR (t:ModelCallTotal) REQUIRE (t.stage, t.model) IS UNIQUE;
