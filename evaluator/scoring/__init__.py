"""The trusted side's pure core: the hardware table, the work a workload must do (FLOPs, bytes),
SOL bounds, scores and aggregates, and the scored result document built from the harness's raw
measurements. No Django: the server's worker and `solarena eval` score with the same code."""
