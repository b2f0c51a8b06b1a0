# compiler unit tests (included from tests/unit/CMakeLists.txt):
#   test_compile_options  the defaults and checks of tlc_compile_options (compile.c)
add_executable(test_compile_options ${CMAKE_CURRENT_LIST_DIR}/test_compile_options.c)
target_compile_options(test_compile_options PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_compile_options PRIVATE tlc)
add_test(NAME test_compile_options COMMAND test_compile_options)
set_tests_properties(test_compile_options PROPERTIES LABELS cpu)
