"""Making bundles: AMD and NVIDIA capture, ingest of raw rocprofv3 output."""
