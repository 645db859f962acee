"""The measuring instrument: load a problem, make inputs, check and time a solution, report raw
numbers. A plain library: it never imports Django and never computes a score.

Two processes, one trusted (docs/security.md has the whole trust boundary):

    reporter (trusted)          __main__  reporter  solution_process  processes  calibration
    solution's process          executor  integrity  fallback
    (untrusted once the solution is imported; only what the reporter checks counts)
    shared, pure helpers        problem  expr  hidden  importer  inputs  checks  timing
                                modules  status  l2  gpu_clock  environment  calibrate
                                profiling  ncu

The protocol. Requests go down pickled, replies come up as JSON; every message up is validated
and anything else is a forgery (REWARD_HACK).

    prepare(device, null problem)  before any user code: warm up, snapshot the harness's own
                                   functions and threads; then the reporter times the null
                                   problem through ordinary calls (its fixed cost per call)
    load(definition, solution)     import the solution
    workload(axes, inputs, buffers)    the shared input and output buffers of one workload
    call(count, timed)             a batch; each call of it runs as:
        -> ready        the solution's process waits; the reporter pauses it, draws the call's
                        inputs into the shared input buffers (and flushes the L2)
        <- go(scalars)  the reporter starts its clock and resumes the solution's side
        -> done         the outputs are in the shared output buffers: the clock stops, the
                        solution's side is paused, the reporter checks the outputs against its
                        own reference and that no thread or process of the solution's is left
        <- next | stop
        -> reply(samples | failure)    the times the process measured inside (GPU activity),
                                       held afterwards to the reporter's clock
                                       (or, for a profiled batch, untimed: its profile, which
                                       the reporter validates and never scores; profiling.py)
    exit

The solution's side runs only while a call is on the reporter's clock, or while it holds
nothing of use (no inputs of a call yet); the reference and the baseline are timed with it
paused.
"""

# The instrument's version, recorded on every evaluation it measures. Raise it with any change that
# can alter a verdict or a time; `manage.py rescore --top N` then re-runs each board's leaders.
HARNESS_VERSION = "2026.12.02"
