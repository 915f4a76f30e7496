"""Applications built on the library: web apps that people use around an evaluation."""
