# Runtime unit tests (included from tests/unit/CMakeLists.txt).
#   test_runtime_nodriver  no usable driver: errors, not crashes; status names (cpu)
#   test_runtime_cache     disk/memory cache format, corruption handling       (cpu)
#   test_runtime_fake      the whole runtime against a fake libcuda            (cpu)
#   test_runtime_gpu       a smoke test on a real GPU; 77 = skipped without one (gpu)
# The *_valgrind variants run the first and third under valgrind where it is
# installed.
set(_rt_dir ${CMAKE_CURRENT_LIST_DIR})

add_executable(test_runtime_nodriver ${_rt_dir}/test_runtime_nodriver.c)
target_compile_options(test_runtime_nodriver PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_runtime_nodriver PRIVATE tlc_runtime)
add_test(NAME test_runtime_nodriver COMMAND test_runtime_nodriver)
set_tests_properties(test_runtime_nodriver PROPERTIES LABELS "cpu")

add_executable(test_runtime_cache ${_rt_dir}/test_runtime_cache.c)
target_compile_options(test_runtime_cache PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_runtime_cache PRIVATE tlc_runtime_core)
add_test(NAME test_runtime_cache COMMAND test_runtime_cache)
set_tests_properties(test_runtime_cache PROPERTIES LABELS "cpu")

# The fake driver is a plain shared object the runtime dlopens through
# $TLC_CUDA_DRIVER; it links nothing of tlc.
add_library(test_runtime_fakecuda MODULE ${_rt_dir}/test_runtime_fakecuda.c)
target_include_directories(test_runtime_fakecuda PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_options(test_runtime_fakecuda PRIVATE ${TLC_WARNINGS} -Wno-missing-prototypes)
add_executable(test_runtime_fake ${_rt_dir}/test_runtime_fake.c)
target_compile_options(test_runtime_fake PRIVATE ${TLC_WARNINGS})
target_compile_definitions(test_runtime_fake PRIVATE
  TLC_FAKE_CUDA="$<TARGET_FILE:test_runtime_fakecuda>")
target_link_libraries(test_runtime_fake PRIVATE tlc_runtime)
add_dependencies(test_runtime_fake test_runtime_fakecuda)
add_test(NAME test_runtime_fake COMMAND test_runtime_fake)
set_tests_properties(test_runtime_fake PROPERTIES LABELS "cpu")

add_executable(test_runtime_gpu ${_rt_dir}/test_runtime_gpu.c)
target_compile_options(test_runtime_gpu PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_runtime_gpu PRIVATE tlc_runtime_core)
add_test(NAME test_runtime_gpu COMMAND test_runtime_gpu)
set_tests_properties(test_runtime_gpu PROPERTIES LABELS "gpu" SKIP_RETURN_CODE 77)

find_program(VALGRIND valgrind)
# (Not in sanitizer builds: ASan's shadow memory and valgrind exclude each other.)
if(VALGRIND AND NOT TLC_SANITIZE AND NOT TLC_FUZZ)
  foreach(_t nodriver fake)
    add_test(NAME test_runtime_${_t}_valgrind
             COMMAND ${VALGRIND} --quiet --error-exitcode=99 --leak-check=full
                     --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
                     $<TARGET_FILE:test_runtime_${_t}>)
    set_tests_properties(test_runtime_${_t}_valgrind PROPERTIES LABELS "cpu;valgrind")
  endforeach()
endif()

# The CPU interpreter through the runtime's CPU device: located memory
# errors and ops against references on random inputs (labels cpu, interp).
add_executable(test_interp ${_rt_dir}/test_interp.c)
target_compile_options(test_interp PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_interp PRIVATE tlc_runtime tlc_examples_check m)
add_test(NAME test_interp COMMAND test_interp)
set_tests_properties(test_interp PROPERTIES LABELS "cpu;interp" TIMEOUT 120)
