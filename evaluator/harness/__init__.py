"""The measuring instrument: load a problem, make inputs, check and time a solution, report raw
numbers. A plain library: it never imports Django and never computes a score.

Two processes, one trusted (docs/security.md has the whole trust boundary):

    reporter (trusted)          __main__  reporter  solution_process  processes  freezer
                                calibration  gpu_bracket
    solution's process          solution_main  executor  integrity  fallback  seccomp
    (untrusted once the solution is imported; only what the reporter checks counts)
    shared, pure helpers        problem  expr  hidden  importer  inputs  checks  timing  channel
                                buffers  stream_ops  modules  status  l2  gpu_clock  environment
                                calibrate  profiling  ncu

The protocol. JSON both ways on one socket pair (channel.py): nothing is pickled, no key is
shared, and every message up is validated; anything else is a forgery (REWARD_HACK). Buffers are
shared as an anonymous memory file (CPU) or CUDA IPC handles (GPU), described in JSON (buffers.py).

    prepare(device, null problem)  before any user code: warm up, install the seccomp filter,
                                   snapshot the harness's own functions and threads; then the
                                   reporter times the null problem through ordinary calls (its
                                   fixed cost per call)
    load(definition, solution)     import the solution
    workload(axes, inputs, buffers, signals)   the shared buffers of one workload (on a GPU, the
                                   words its stream and the reporter's exchange: gpu_bracket.py)
    call(count, timed)             a batch; each call of it runs as:
        -> ready        the solution's process waits; the reporter pauses its side, draws the
                        call's inputs (on a GPU, queues its own stream's bracket of the call,
                        which copies them in and flushes the L2 once the solution's stream is
                        ready, and freezes the outputs once that stream says done)
        <- go(scalars, ticket)   the reporter starts its clock and resumes the solution's side
        -> done         the outputs are in the shared output buffers: the reporter pauses the
                        solution's side, stops its clock, checks the outputs as they were at the
                        done against its own reference, and that no thread or process of the
                        solution's is left
        <- next | stop
        -> reply(samples | failure)    the times the process measured inside (GPU activity),
                                       held afterwards to the reporter's clock
                                       (or, for a profiled batch, untimed: its profile, which
                                       the reporter validates and never scores; profiling.py)
    exit

The solution's side runs only while a call is on the reporter's clock, or while it holds
nothing of use (no inputs of a call yet); the reference and the baseline are timed with it
paused (and, on a GPU, none of its work left running).
"""

# The instrument's version, recorded on every evaluation it measures. Raise it with any change that
# can alter a verdict or a time; `manage.py rescore --top N` then re-runs each board's leaders.
HARNESS_VERSION = "2026.12.05"
