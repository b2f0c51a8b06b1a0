# passes unit tests (included from tests/unit/CMakeLists.txt):
#   test_passes_canon    canonicalize: folding, identities, CSE, DCE, loops, if
#   test_passes_layouts  AxisInfo, coalesce, assign-layouts and the pipeline
# They link the static pass, IR and support libraries only (no LLVM).
foreach(t test_passes_canon test_passes_layouts)
  add_executable(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR})
  target_compile_options(${t} PRIVATE ${TLC_WARNINGS})
  target_link_libraries(${t} PRIVATE tlc_passes m)
  add_test(NAME ${t} COMMAND ${t})
  set_tests_properties(${t} PROPERTIES LABELS cpu)
endforeach()
