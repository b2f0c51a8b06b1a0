# passes unit tests (included from tests/unit/CMakeLists.txt):
#   test_passes   the AxisInfo analysis and the pass manager's plumbing, on IR
#                 read from text (what the passes make of IR is checked by
#                 the lit tests of tests/lit/passes)
# It links the static pass, IR and support libraries only (no LLVM).
add_executable(test_passes ${CMAKE_CURRENT_SOURCE_DIR}/test_passes.c)
target_include_directories(test_passes PRIVATE ${CMAKE_SOURCE_DIR})
target_compile_options(test_passes PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_passes PRIVATE tlc_passes m)
add_test(NAME test_passes COMMAND test_passes)
set_tests_properties(test_passes PROPERTIES LABELS cpu)
