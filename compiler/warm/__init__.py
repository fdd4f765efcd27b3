"""The pipeline kept warm: the Compiler, the file-reading stages it keeps between turns, the
freshness check that says when an input changed, the parse cache on disk and batch workers."""
