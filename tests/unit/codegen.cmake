# codegen unit tests (included from tests/unit/CMakeLists.txt):
#   test_codegen         hand-built tile IR -> PTX for sm_90a and sm_80; checks
#                        the PTX text and runs ptxas on it when on the PATH
#   test_codegen_layout  the per-element coordinate formula and the ownership
#                        predicate against an independent model, every thread
foreach(t test_codegen test_codegen_layout)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR} ${LLVM_INCLUDE_DIR})
  target_compile_options(${t} PRIVATE ${TLC_WARNINGS})
  # They call codegen's internals, which libtlc.so does not export (only
  # tlc_*): the static archives and LLVM, linked here; with TLC_EXPORT_ALL
  # (the GPU machine's build) libtlc.so, which then exports them.
  if(TLC_EXPORT_ALL)
    target_link_libraries(${t} PRIVATE tlc m ${CMAKE_DL_LIBS})
  else()
    target_link_libraries(${t} PRIVATE tlc_codegen tlc_passes tlc_ir tlc_support ${LLVM_LINK} m ${CMAKE_DL_LIBS})
    set_target_properties(${t} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  add_test(NAME ${t} COMMAND ${t})
  set_tests_properties(${t} PROPERTIES LABELS cpu)
endforeach()
# The same cases launched on the GPU and checked against CPU references
# (skipped with 77 where libcuda.so.1 or a device is missing).
add_test(NAME test_codegen_gpu COMMAND test_codegen --gpu)
set_tests_properties(test_codegen_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
# Repeated compilations through the public API keep no memory and carry no
# state over (LLVM's process-wide NVPTX annotation table).  glibc's tcache
# holds freed chunks as in use; off, mallinfo2 counts exactly.
add_executable(test_compile_repeat ${CMAKE_CURRENT_SOURCE_DIR}/test_compile_repeat.c)
target_include_directories(test_compile_repeat PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_options(test_compile_repeat PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_compile_repeat PRIVATE tlc)
add_test(NAME test_compile_repeat COMMAND test_compile_repeat)
set_tests_properties(test_compile_repeat PROPERTIES LABELS cpu
                     ENVIRONMENT "GLIBC_TUNABLES=glibc.malloc.tcache_count=0")
