# IR unit tests: the linear form of layouts against the fragment rules.
add_executable(test_linear_layout ${CMAKE_CURRENT_SOURCE_DIR}/test_linear_layout.c)
target_compile_options(test_linear_layout PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_linear_layout PRIVATE tlc_ir)
add_test(NAME test_linear_layout COMMAND test_linear_layout)
set_tests_properties(test_linear_layout PROPERTIES LABELS cpu)
