"""Deja: memory for the Continue coding assistant."""

__version__ = "0.1.0"
