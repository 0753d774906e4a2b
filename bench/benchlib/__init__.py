"""Support code for bench/run, the llmux benchmark (see bench/README.md)."""
