"""The spec's derived views: every key, its JSON Schema, and sweep expansion into points."""
