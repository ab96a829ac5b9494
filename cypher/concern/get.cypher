// params: concern_id
MATCH (c:Concern {concern_id: $concern_id})
RETURN c.doc AS doc, c.scope AS scope
