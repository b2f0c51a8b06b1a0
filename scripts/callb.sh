set +e
B=build-gpu/bin; O=$OUT
ld=$(python3 tests/gpu/random_vs_triton.py --print-libdevice 2>/dev/null); echo "libdevice: $ld"
rm -rf /tmp/rnd; TLC_MATH_LIB=libdevice TLC_LIBDEVICE=$ld TLC_RANDOM_DUMP=/tmp/rnd timeout 90 $B/test_random_gpu > $O/rnd.log 2>&1; echo "test_random_gpu rc=$?"
timeout 90 python3 tests/gpu/random_vs_triton.py /tmp/rnd > $O/rnd_cmp.log 2>&1; echo "random_vs_triton rc=$?"; tail -25 $O/rnd_cmp.log
rm -rf /tmp/math-ld; TLC_MATH_LIB=libdevice TLC_LIBDEVICE=$ld TLC_MATH_DUMP=/tmp/math-ld timeout 120 $B/test_math_gpu > $O/math_ld.log 2>&1; echo "test_math_gpu(libdevice) rc=$?"; grep -E "SUMMARY|FAIL" $O/math_ld.log | head -10
timeout 200 python3 tests/gpu/math_vs_triton.py /tmp/math-ld > $O/math_cmp.log 2>&1; echo "math_vs_triton rc=$?"; tail -30 $O/math_cmp.log
