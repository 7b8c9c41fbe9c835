"""Measures of a colony's behaviour computed from its records (pure functions)."""
