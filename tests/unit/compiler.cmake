# compiler unit tests (included from tests/unit/CMakeLists.txt):
#   test_compile_options  the defaults and checks of tlc_compile_options (compile.c)
add_executable(test_compile_options ${CMAKE_CURRENT_LIST_DIR}/test_compile_options.c)
target_compile_options(test_compile_options PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_compile_options PRIVATE tlc)
add_test(NAME test_compile_options COMMAND test_compile_options)
set_tests_properties(test_compile_options PROPERTIES LABELS cpu)
#   test_compile_threads  compilations on 8 threads at once give the PTX each gives alone
add_executable(test_compile_threads ${CMAKE_CURRENT_LIST_DIR}/test_compile_threads.c)
target_compile_options(test_compile_threads PRIVATE ${TLC_WARNINGS})
target_link_libraries(test_compile_threads PRIVATE tlc -pthread)
add_test(NAME test_compile_threads COMMAND test_compile_threads)
set_tests_properties(test_compile_threads PROPERTIES LABELS cpu TIMEOUT 600)
