"""Pure computations on typed inputs: hotspots, occupancy, ISA, counters, roofline, verdicts, advice."""
