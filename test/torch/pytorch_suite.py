"""PyTorch's own generic distributed test suite (torch/testing/_internal/distributed/
distributed_test.py, DistributedTest._DistTestBase) against the "hetccl" backend, run the way
upstream PyTorch ran its MPI backend: one mpirun job, the default group initialised once, every
rank running the same tests in the same order.

    mpirun -np 2 /usr/bin/python3 pytorch_suite.py WORK_DIR [--timeout S] [-k PATTERN]...

Between two tests the ranks meet in a barrier and agree on the test's outcome (over a Gloo
group, so the harness does not lean on the backend under test).  Each test runs under a
watchdog: a test that does not end within the timeout is reported as a hang, with every
thread's stack, and the job is ended (a collective left half-done cannot be recovered).  Rank 0
prints one line per test and a tally; the exit status is non-zero on any failure, error or hang.
-k keeps the tests whose name contains one of the patterns (all tests when none is given).
"""
import argparse
import datetime
import faulthandler
import os
import shutil
import sys
import threading
import time
import traceback
import types
import unittest

import hetccl.torch as hetccl_torch  # registers the backend

import suite_registration
import suite_ungated

EXIT_HANG = 3


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work_dir", help="a directory for the store and the suite's temporary files")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a test may take before it counts as hung")
    parser.add_argument("-k", dest="patterns", action="append", default=[], help="run tests whose name contains this")
    parser.add_argument("--list", action="store_true", help="print the tests that would run, then exit")
    arguments = parser.parse_args()
    # The suite's common_utils parses sys.argv when imported: leave it nothing of ours.
    sys.argv = sys.argv[:1]
    return arguments


def prepare_environment(arguments, rank, size):
    """What the suite reads from the environment, some of it at import time."""
    temp_dir = os.path.join(os.path.abspath(arguments.work_dir), "temp")
    if rank == 0:
        # Files of an earlier run would hold its barrier counts and store keys.
        shutil.rmtree(arguments.work_dir, ignore_errors=True)
        for sub in ("barrier", "test_dir", "init_dir"):
            os.makedirs(os.path.join(temp_dir, sub))
    os.environ.update(BACKEND=suite_registration.BACKEND, WORLD_SIZE=str(size), TEMP_DIR=temp_dir,
                      INIT_METHOD="file://" + os.path.join(temp_dir, "init_dir", "shared_init_file"))
    return os.path.join(os.path.abspath(arguments.work_dir), "store")


def provide_expecttest():
    """Debian ships torch's test helpers without their dependency expecttest (golden-output
    assertions, which the distributed suite never makes; common_utils only derives its
    TestCase from expecttest's and reads its ACCEPT flag).  A stand-in with just that, unless
    the real one is installed."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        stand_in = types.ModuleType("expecttest")
        stand_in.ACCEPT = False
        stand_in.TestCase = unittest.TestCase
        sys.modules["expecttest"] = stand_in


def wait_for_directory(path, seconds=60):
    deadline = time.monotonic() + seconds
    while not os.path.isdir(path):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path} was not created by rank 0 within {seconds} s")
        time.sleep(0.05)


class Outcome(unittest.TestResult):
    """One test's outcome on this rank: (status, detail)."""

    def __init__(self, skip_reasons):
        super().__init__()
        self.skip_reasons = skip_reasons
        self.status, self.detail = "pass", ""

    def addError(self, test, err):
        # The suite skips some tests by sys.exit(code) (its multi-process runner reads the code).
        if issubclass(err[0], SystemExit) and err[1].code in self.skip_reasons:
            self.status, self.detail = "skip", self.skip_reasons[err[1].code]
            return
        self.status, self.detail = "error", "".join(traceback.format_exception(*err))

    def addFailure(self, test, err):
        self.status, self.detail = "fail", "".join(traceback.format_exception(*err))

    def addSkip(self, test, reason):
        self.status, self.detail = "skip", reason

    def addUnexpectedSuccess(self, test):
        self.status, self.detail = "fail", "unexpected success"


def run_one(test_class, name, timeout, rank, skip_reasons):
    """Runs one test on this rank under the watchdog; returns (status, detail, seconds)."""
    def hang():
        print(f"HANG {name}: rank {rank} did not finish within {timeout:g} s; every thread's stack:", flush=True)
        faulthandler.dump_traceback(all_threads=True)
        sys.stderr.flush()
        os._exit(EXIT_HANG)

    watchdog = threading.Timer(timeout, hang)
    watchdog.daemon = True
    start = time.monotonic()
    watchdog.start()
    outcome = Outcome(skip_reasons)
    try:
        test_class(name).run(outcome)
    finally:
        watchdog.cancel()
    return outcome.status, outcome.detail, time.monotonic() - start


def agree(dist, harness_group, outcome, timeout, name, rank):
    """The barrier between tests: every rank's outcome, gathered on every rank."""
    def hang():
        print(f"HANG after {name}: rank {rank} waited {timeout:g} s for the other ranks to finish it", flush=True)
        faulthandler.dump_traceback(all_threads=True)
        os._exit(EXIT_HANG)

    watchdog = threading.Timer(timeout, hang)
    watchdog.daemon = True
    watchdog.start()
    outcomes = [None] * dist.get_world_size()
    dist.all_gather_object(outcomes, outcome, group=harness_group)
    watchdog.cancel()
    return outcomes


def combine(outcomes):
    """A test passes if it passed on every rank; skipped if skipped everywhere; else the worst."""
    statuses = [status for status, _, _ in outcomes]
    for worst in ("error", "fail"):
        if worst in statuses:
            return worst
    if all(status == "skip" for status in statuses):
        return "skip"
    if "skip" in statuses:
        return "fail"  # skipped on some ranks only: the ranks disagree about the test
    return "pass"


def main():
    arguments = parse_arguments()
    rank, size = hetccl_torch.mpi_world()
    store = prepare_environment(arguments, rank, size)
    wait_for_directory(os.path.join(os.environ["TEMP_DIR"], "barrier"))

    import torch.distributed as dist

    provide_expecttest()
    sets = suite_registration.register()
    # Imported only now: the suite evaluates BACKEND, WORLD_SIZE and the sets at import time.
    from torch.testing._internal.common_distributed import TEST_SKIPS
    from torch.testing._internal.common_utils import TestCase
    from torch.testing._internal.distributed.distributed_test import DistributedTest, default_pg_timeout

    class TestHetccl(TestCase, DistributedTest._DistTestBase):
        """The suite's tests on the default group initialised below (its MPI pattern)."""

        @property
        def world_size(self):
            return os.environ["WORLD_SIZE"]

        def setUp(self):
            super().setUp()
            self.rank = dist.get_rank()
            self.file_name = store

        @property
        def init_method(self):
            return "file://" + store

    dist.init_process_group(suite_registration.BACKEND, init_method="file://" + store, rank=rank, world_size=size,
                            timeout=datetime.timedelta(seconds=default_pg_timeout))
    harness = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=arguments.timeout * 2))
    skip_reasons = {skip.exit_code: skip.message for skip in TEST_SKIPS.values()}
    names = unittest.TestLoader().getTestCaseNames(TestHetccl)
    if arguments.patterns:
        names = [name for name in names if any(pattern in name for pattern in arguments.patterns)]
    lifted = suite_ungated.lift(TestHetccl, names)
    if arguments.list:
        if rank == 0:
            print("\n".join(names))
        return 0

    results = []
    started = time.monotonic()
    for name in names:
        outcome = run_one(TestHetccl, name, arguments.timeout, rank, skip_reasons)
        if outcome[0] in ("fail", "error"):
            print(f"rank {rank}: {outcome[0].upper()} {name}\n{outcome[1]}", flush=True)
        outcomes = agree(dist, harness, outcome, arguments.timeout, name, rank)
        results.append((name, combine(outcomes), outcomes))
        if rank == 0:
            status = results[-1][1]
            reason = f" ({outcomes[0][1]})" if status == "skip" else ""
            seconds = max(seconds for _, _, seconds in outcomes)
            gate = " (gate by backend name lifted)" if name in lifted else ""
            print(f"{status.upper():5} {name} {seconds:.2f} s{reason}{gate}", flush=True)
    if rank == 0:
        print_tally(results, sets, lifted, size, time.monotonic() - started)
    failed = sum(1 for _, status, _ in results if status in ("fail", "error"))
    dist.destroy_process_group()
    return 1 if failed else 0


def print_tally(results, sets, lifted, size, seconds):
    counts = {status: 0 for status in ("pass", "fail", "error", "skip")}
    reasons = {}
    for _, status, outcomes in results:
        counts[status] += 1
        if status == "skip":
            reasons[outcomes[0][1]] = reasons.get(outcomes[0][1], 0) + 1
    print(f"\nPyTorch distributed suite, backend hetccl (in the sets: {', '.join(sets)}), {size} ranks, "
          f"{len(results)} tests in {seconds:.1f} s: {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['error']} errors, {counts['skip']} skipped; {len(lifted)} tests gated by a backend's name "
          f"run (test/torch/suite_ungated.py), of them "
          f"{sum(1 for name, status, _ in results if name in lifted and status == 'pass')} passed")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        print(f"  skipped {count:3}: {reason}")
    for name, status, _ in results:
        if status in ("fail", "error"):
            print(f"  {status}: {name}")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
