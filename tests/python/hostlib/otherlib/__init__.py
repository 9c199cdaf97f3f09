"""Imported by mylib on the host, never by a kernel's module directly."""
SHIFT = 5.0
