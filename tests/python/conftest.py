"""Session-wide setup for the Python tests: Triton must see TRITON_INTERPRET=1
before its first import, or interpreted kernels that reduce fail."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")
