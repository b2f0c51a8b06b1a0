# install.cmake — what `cmake --install` puts under the prefix:
#   bin/tlc
#   lib/libtlc.so                 the compiler (LLVM inside or beside it)
#   lib/libtlc_runtime.so         the runtime with its JIT layer (needs libtlc.so)
#   lib/libtlc_runtime_core.so    loader and launcher only: ahead-of-time kernels
#                                 (tlc compile --emit c), no compiler, no LLVM
#   include/tlc/                  tlc_runtime.h, tlc_compiler.h, support/tlc_param_kinds.h
#   lib/pkgconfig/tlc.pc          -ltlc_runtime -ltlc
#   lib/pkgconfig/tlc-runtime-core.pc   -ltlc_runtime_core
#   lib/cmake/tlc/                find_package(tlc): tlc::runtime, tlc::runtime_core,
#                                 tlc::compiler (libtlc) and tlc::tlc (the command line)
# Libraries and the program find each other through the $ORIGIN/../lib rpath,
# so the prefix can move.  Every library exports only tlc_* (TLC_EXPORTS_ONLY).
set(TLC_INSTALL_LIB lib)
install(TARGETS tlc_cli RUNTIME DESTINATION bin)
install(TARGETS tlc tlc_runtime_shared tlc_runtime_core_shared LIBRARY DESTINATION ${TLC_INSTALL_LIB})
install(FILES runtime/tlc_runtime.h compiler/tlc_compiler.h DESTINATION include/tlc)
install(FILES support/tlc_param_kinds.h DESTINATION include/tlc/support)

# The build machine's cJSON goes with a build meant for machines without
# the build's packages (TLC_LLVM_STATIC: the GPU machine): beside the
# libraries, where the rpath finds it.
if(TLC_LLVM_STATIC)
  get_filename_component(_tlc_cjson_real ${CJSON_LIBRARY} REALPATH)
  execute_process(COMMAND objdump -p ${_tlc_cjson_real} OUTPUT_VARIABLE _tlc_cjson_dyn)
  string(REGEX MATCH "SONAME +([^ \n]+)" _m "${_tlc_cjson_dyn}")
  if(CMAKE_MATCH_1)
    configure_file(${_tlc_cjson_real} ${CMAKE_BINARY_DIR}/lib/${CMAKE_MATCH_1} COPYONLY)
  endif()
endif()

configure_file(${CMAKE_SOURCE_DIR}/cmake/tlc.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/tlc.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/tlc-runtime-core.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/tlc-runtime-core.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/tlc.pc ${CMAKE_BINARY_DIR}/pkgconfig/tlc-runtime-core.pc
        DESTINATION ${TLC_INSTALL_LIB}/pkgconfig)

include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/tlcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/tlcConfig.cmake ${CMAKE_BINARY_DIR}/cmake/tlcConfigVersion.cmake
        DESTINATION ${TLC_INSTALL_LIB}/cmake/tlc)
