# lit configuration for tlc's golden tests.  Each test is a .tile file (or
# .test) with RUN: lines; %tlc is the command-line compiler, FileCheck and
# not come from LLVM 19.  Tests needing ptxas declare `REQUIRES: ptxas`.
import os
import shutil
import lit.formats

config.name = "tlc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tile", ".test", ".tir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tlc_obj_root, "tests", "lit")

config.substitutions.append(("%tlc", os.path.join(config.tlc_bin_dir, "tlc")))
config.substitutions.append(("%examples", os.path.join(config.tlc_src_root, "examples")))
config.substitutions.append(("%seeds", os.path.join(config.tlc_src_root, "examples")))
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_bin_dir, config.tlc_bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# In a sanitizer build (-DTLC_SANITIZE=ON) a report must fail the test even
# under `not`: make ASan, LeakSanitizer and UBSan abort (a signal, which `not`
# does not turn into success) instead of exiting with a status.
config.environment["ASAN_OPTIONS"] = "abort_on_error=1:detect_leaks=1"
config.environment["UBSAN_OPTIONS"] = "abort_on_error=1:print_stacktrace=1"
# ptxas from the PATH, else from the CUDA toolkit's usual place (as the
# examples' CMake finds it), so that ctest checks the PTX too.
_ptxas = shutil.which("ptxas", path=os.environ.get("PATH", "") + os.pathsep + "/usr/local/cuda/bin")
if _ptxas:
    config.available_features.add("ptxas")
    config.environment["PATH"] = config.environment["PATH"] + os.pathsep + os.path.dirname(_ptxas)
    # The arches this ptxas assembles for, as features "ptxas-sm_100", ...:
    # a test of PTX for newer GPUs runs where the toolkit knows them
    # (CUDA 12.8 and later) and is unsupported elsewhere.
    import subprocess
    try:
        _help = subprocess.run([_ptxas, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        _help = ""
    for _arch in ("sm_100", "sm_120"):
        if _arch in _help:
            config.available_features.add("ptxas-" + _arch)
# A libdevice in one of the fixed places tlc's search for --math-lib=libdevice
# looks at (codegen/cg_libdevice.c): the test of its "not found" message
# cannot run where one is.
for _p in ("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
           "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"):
    if os.path.exists(_p):
        config.available_features.add("system-libdevice")
# The math library: the CLI's default (auto) takes a libdevice where the
# machine has one, so golden output would depend on the machine: tests get
# libclc unless their RUN line asks for another (--math-lib, --libdevice).
config.environment["TLC_MATH_LIB"] = "libclc"
