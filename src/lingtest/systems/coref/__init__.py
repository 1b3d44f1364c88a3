"""Coreference systems under test."""
