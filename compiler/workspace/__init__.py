"""The workspace half of the pipeline: load the bootstrap files, filter them for the run, cut them
to budget, and list the skills; plus the workspace's own setup state."""
