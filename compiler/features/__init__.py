"""What is built on the compiler: snapshots, bundles, lint, watch, and the cache simulator."""
