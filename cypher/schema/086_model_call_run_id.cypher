// A supervision run's model calls by run id alone (cypher/llm/cost_of_runs): the (run_id,
// batch) index of 082 needs a predicate on batch too.
CREATE INDEX model_call_run_id IF NOT EXISTS FOR (c:ModelCall) ON (c.run_id);
