"""What the agent changed: snapshots of the workspace, the change between them, the patch."""
