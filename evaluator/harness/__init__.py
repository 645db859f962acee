"""The measuring instrument: load a problem, make inputs, check and time a solution, report raw
numbers. A plain library: it never imports Django and never computes a score."""
