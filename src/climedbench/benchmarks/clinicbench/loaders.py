"""Loaders for the ClinicBench datasets in the forms users have them (filled in below)."""
