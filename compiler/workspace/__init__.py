"""The workspace stages: load the bootstrap files, filter them for the run, cut them to budget;
plus the workspace's own setup state."""
