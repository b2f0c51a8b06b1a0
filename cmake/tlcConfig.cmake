# tlcConfig.cmake — find_package(tlc) from an install prefix (cmake/install.cmake):
#   tlc::runtime       libtlc_runtime.so (JIT from .tile source; needs tlc::compiler)
#   tlc::runtime_core  libtlc_runtime_core.so (ahead-of-time kernels only)
#   tlc::compiler      libtlc.so (tlc_compiler.h)
#   tlc::tlc           the tlc program (add_custom_command(COMMAND tlc::tlc compile ... --emit c))
# Headers: #include <tlc/tlc_runtime.h>.  tlc_DIR's prefix may move.
get_filename_component(_tlc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET tlc::runtime_core)
  foreach(_tlc_lib compiler:tlc runtime_core:tlc_runtime_core runtime:tlc_runtime)
    string(REPLACE ":" ";" _tlc_pair ${_tlc_lib})
    list(GET _tlc_pair 0 _tlc_target)
    list(GET _tlc_pair 1 _tlc_file)
    add_library(tlc::${_tlc_target} SHARED IMPORTED)
    set_target_properties(tlc::${_tlc_target} PROPERTIES
      IMPORTED_LOCATION "${_tlc_prefix}/lib/lib${_tlc_file}.so"
      IMPORTED_SONAME "lib${_tlc_file}.so"
      INTERFACE_INCLUDE_DIRECTORIES "${_tlc_prefix}/include")
  endforeach()
  set_target_properties(tlc::runtime PROPERTIES INTERFACE_LINK_LIBRARIES tlc::compiler)
  add_executable(tlc::tlc IMPORTED)
  set_target_properties(tlc::tlc PROPERTIES IMPORTED_LOCATION "${_tlc_prefix}/bin/tlc")
endif()
unset(_tlc_prefix)
