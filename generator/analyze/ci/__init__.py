"""The CI benchmark stream's computations (DOMAIN.md §6): ``moves`` (series, noise, resolution, the
move test), ``report`` (PR checks, health against the release tag, FlyDSL-vs-AIter speedups)."""
