"""A run, in the order it happens: `plan` (items → requests, provenance), `engine` (one request → its sample;
what executors import), `driver` (executor, run directory, results; imports executors), `accounting`."""
