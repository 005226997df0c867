# FindCAF.cmake -- locate CAF 0.17 as packaged by Debian (libcaf-dev), which
# ships neither a CMake package config nor a pkg-config file.
# Usage:  find_package(CAF 0.17 REQUIRED COMPONENTS core io [openssl])
# Result: imported targets CAF::core, CAF::io, CAF::openssl; variables
#         CAF_FOUND, CAF_VERSION, CAF_INCLUDE_DIRS, CAF_LIBRARIES,
#         CAF_<comp>_FOUND, CAF_<comp>_LIBRARY
if(NOT CAF_FIND_COMPONENTS)
  set(CAF_FIND_COMPONENTS core)
endif()

find_path(CAF_INCLUDE_DIR NAMES caf/config.hpp)

if(CAF_INCLUDE_DIR AND EXISTS "${CAF_INCLUDE_DIR}/caf/config.hpp")
  file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_ver_line
       REGEX "^#define CAF_VERSION [0-9]+")
  string(REGEX REPLACE "^#define CAF_VERSION ([0-9]+).*" "\\1" _caf_ver
         "${_caf_ver_line}")
  math(EXPR _caf_major "${_caf_ver} / 10000")
  math(EXPR _caf_minor "(${_caf_ver} / 100) % 100")
  math(EXPR _caf_patch "${_caf_ver} % 100")
  set(CAF_VERSION "${_caf_major}.${_caf_minor}.${_caf_patch}")
endif()

set(CAF_LIBRARIES "")
foreach(_comp IN LISTS CAF_FIND_COMPONENTS)
  find_library(CAF_${_comp}_LIBRARY NAMES caf_${_comp})
  if(CAF_${_comp}_LIBRARY AND CAF_INCLUDE_DIR)
    set(CAF_${_comp}_FOUND TRUE)
    list(APPEND CAF_LIBRARIES "${CAF_${_comp}_LIBRARY}")
  else()
    set(CAF_${_comp}_FOUND FALSE)
  endif()
  mark_as_advanced(CAF_${_comp}_LIBRARY)
endforeach()
mark_as_advanced(CAF_INCLUDE_DIR)
set(CAF_INCLUDE_DIRS "${CAF_INCLUDE_DIR}")

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF
  REQUIRED_VARS CAF_INCLUDE_DIR
  VERSION_VAR CAF_VERSION
  HANDLE_COMPONENTS)

if(CAF_FOUND)
  find_package(Threads REQUIRED)
  if(CAF_core_FOUND AND NOT TARGET CAF::core)
    add_library(CAF::core SHARED IMPORTED)
    set_target_properties(CAF::core PROPERTIES
      IMPORTED_LOCATION "${CAF_core_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  endif()
  if(CAF_io_FOUND AND NOT TARGET CAF::io)
    add_library(CAF::io SHARED IMPORTED)
    set_target_properties(CAF::io PROPERTIES
      IMPORTED_LOCATION "${CAF_io_LIBRARY}"
      INTERFACE_LINK_LIBRARIES CAF::core)
  endif()
  if(CAF_openssl_FOUND AND NOT TARGET CAF::openssl)
    # caf/openssl/session.hpp includes <openssl/ssl.h>: needs libssl-dev,
    # which libcaf-dev does NOT depend on.
    find_package(OpenSSL REQUIRED)
    add_library(CAF::openssl SHARED IMPORTED)
    set_target_properties(CAF::openssl PROPERTIES
      IMPORTED_LOCATION "${CAF_openssl_LIBRARY}"
      INTERFACE_LINK_LIBRARIES "CAF::io;OpenSSL::SSL")
  endif()
endif()
