"""solarena: a leaderboard and submission platform for GPU kernels."""
