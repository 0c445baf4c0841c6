"""Inputs to typed objects: discovery, capture formats, campaigns, counter files."""
