"""Many tasks: ``agentci batch`` on one machine, shards for a CI matrix, merged reports
(docs/batch.md)."""
