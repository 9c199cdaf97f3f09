"""A library package on the host's sys.path (not the kernel's package): tests/python/test_host_packages.py."""
