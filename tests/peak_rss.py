"""Running the CLI in a child that reports its own peak memory, for the attack tests.

``CONTROLLER`` runs ``python -m engine ARGS`` and, at exit (exit code 2 included), writes
the process's peak resident memory (``VmHWM``, KiB) to the file named by its first
argument. ``VmHWM`` belongs to the program's own memory since exec: ``ru_maxrss`` would keep
the peak of the pytest process it was forked from, which other tests grow.
"""

CONTROLLER = """
import atexit, re, runpy, sys
out = sys.argv.pop(1)
def peak():
    status = open("/proc/self/status").read()
    open(out, "w").write(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1))
atexit.register(peak)
sys.argv[0] = "engine"
runpy.run_module("engine", run_name="__main__", alter_sys=True)
"""
