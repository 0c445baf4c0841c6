"""One module per CLI command (see generator.cli)."""
