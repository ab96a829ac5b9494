// params: scope
// The scope's current agenda policy version (the newest), if one was ever saved.
MATCH (p:AgendaPolicyVersion)
WHERE p.scope = $scope AND p.version >= 1
RETURN p {.*} AS p
ORDER BY p.version DESC
LIMIT 1
