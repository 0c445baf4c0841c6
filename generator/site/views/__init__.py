"""Display-ready view models: one module per page and one per kernel-page panel (templates/panels/)."""
