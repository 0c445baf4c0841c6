"""The static website: build orchestration, views, charts, rendering, publishing."""
