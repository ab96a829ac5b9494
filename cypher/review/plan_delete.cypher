// params: deployment, config_id
// Deleting a plan leaves its runs and every checkpoint alone (删除报告或计划不重置来源进度; docs/rules/reviews.md).
MATCH (p:HeartbeatPlan {config_id: $config_id, deployment: $deployment})
DELETE p
RETURN count(*) AS deleted
