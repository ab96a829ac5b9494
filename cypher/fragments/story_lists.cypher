// The lists of a story read (stories, events, entities, relations, changes, summaries,
// references, suggestions, each bound to a list of nodes) returned as maps, as
// graph.story.window.graph_from_lists reads them. Follows a read that bound the eight lists.
// Instants cross the driver as epoch microseconds (graph.temporal.from_epoch_us): the
// driver's DateTime decoding was most of this read's time.
// Each node's properties are read once (x {.*}); the instants are then converted on the
// maps, which costs no further db hits.
WITH [x IN stories | x {.*}] AS stories,
     [x IN events | x {.*}] AS events,
     [x IN entities | x {.*}] AS entities,
     [x IN relations | x {.*}] AS relations,
     [x IN changes | x {.*}] AS changes,
     [x IN summaries | x {.*}] AS summaries,
     [x IN references | x {.*}] AS references,
     [x IN suggestions | x {.*}] AS suggestions
RETURN [m IN stories | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         retracted_at: m.retracted_at.epochMillis * 1000 + m.retracted_at.microsecond % 1000}] AS stories,
       [m IN events | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         retracted_at: m.retracted_at.epochMillis * 1000 + m.retracted_at.microsecond % 1000,
         at: m.at.epochMillis * 1000 + m.at.microsecond % 1000}] AS events,
       [m IN entities | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         retracted_at: m.retracted_at.epochMillis * 1000 + m.retracted_at.microsecond % 1000,
         valid_from: m.valid_from.epochMillis * 1000 + m.valid_from.microsecond % 1000,
         valid_to: m.valid_to.epochMillis * 1000 + m.valid_to.microsecond % 1000}] AS entities,
       [m IN relations | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         retracted_at: m.retracted_at.epochMillis * 1000 + m.retracted_at.microsecond % 1000,
         valid_from: m.valid_from.epochMillis * 1000 + m.valid_from.microsecond % 1000,
         valid_to: m.valid_to.epochMillis * 1000 + m.valid_to.microsecond % 1000}] AS relations,
       [m IN changes | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000}] AS changes,
       [m IN summaries | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         interval_start: m.interval_start.epochMillis * 1000 + m.interval_start.microsecond % 1000,
         interval_end: m.interval_end.epochMillis * 1000 + m.interval_end.microsecond % 1000}] AS summaries,
       [m IN references | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000}] AS references,
       [m IN suggestions | m {.*,
         recorded_at: m.recorded_at.epochMillis * 1000 + m.recorded_at.microsecond % 1000,
         retracted_at: m.retracted_at.epochMillis * 1000 + m.retracted_at.microsecond % 1000}] AS suggestions
