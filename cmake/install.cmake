# install.cmake - what `cmake --install build --prefix P` puts under P (docs/install.md):
#   bin/                      nki-sim, nki-as, nki-objdump, nki-target
#   include/nkisim/           the public API (api/*.h) and every project header it includes, same relative paths
#   lib/                      the layer libraries (static)
#   lib/cmake/nkisim/         nkisimConfig.cmake, its version file and the exported targets (nkisim::nkisim, ...)
#   NKISIM_PYTHON_DIR         the Python packages nkisim (with _nkisim), nki and neuronxcc
include(CMakePackageConfigHelpers)

set(NKISIM_INCLUDE_DIR include/nkisim)
set(NKISIM_CMAKE_DIR lib/cmake/nkisim)
# A site-packages-style folder relative to the prefix, named as the build's Python names its own (Debian:
# lib/python3.11/dist-packages), so the default prefix /usr/local lands on the system Python's path.
execute_process(COMMAND ${NKISIM_PYTHON} -c
  "import sys, sysconfig, os; print('lib/python%d.%d/%s' % (sys.version_info[0], sys.version_info[1], os.path.basename(sysconfig.get_path('purelib'))))"
  OUTPUT_VARIABLE NKISIM_PYTHON_DIR_DEFAULT OUTPUT_STRIP_TRAILING_WHITESPACE)
set(NKISIM_PYTHON_DIR ${NKISIM_PYTHON_DIR_DEFAULT} CACHE STRING
    "where cmake --install puts the Python package, relative to the install prefix")

# The public headers: api/*.h and the closure of the project headers they include ("dir/file.h" from the root).
file(GLOB nkisim_public_headers RELATIVE ${CMAKE_SOURCE_DIR} CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/api/*.h)
set(nkisim_header_queue ${nkisim_public_headers})
set(nkisim_installed_headers)
while(nkisim_header_queue)
  list(POP_FRONT nkisim_header_queue header)
  if(header IN_LIST nkisim_installed_headers)
    continue()
  endif()
  list(APPEND nkisim_installed_headers ${header})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${header})
  file(STRINGS ${CMAKE_SOURCE_DIR}/${header} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" inc "${line}")
    if(EXISTS ${CMAKE_SOURCE_DIR}/${inc})
      list(APPEND nkisim_header_queue ${inc})
    else()
      message(FATAL_ERROR "${header} includes \"${inc}\", which is not a path from the source root")
    endif()
  endforeach()
endwhile()
foreach(header ${nkisim_installed_headers})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${CMAKE_SOURCE_DIR}/${header} DESTINATION ${NKISIM_INCLUDE_DIR}/${dir})
endforeach()

# The libraries, exported as nkisim::isa, nkisim::sim, nkisim::ir, nkisim::frontend, nkisim::api, and
# nkisim::nkisim (the API with everything it needs), the target consumers link.
add_library(nkisim INTERFACE)
target_link_libraries(nkisim INTERFACE nkisim_api)
add_library(nkisim::nkisim ALIAS nkisim)
foreach(layer isa sim ir frontend api)
  set_target_properties(nkisim_${layer} PROPERTIES EXPORT_NAME ${layer})
endforeach()
install(TARGETS nkisim nkisim_isa nkisim_sim nkisim_ir nkisim_frontend nkisim_api EXPORT nkisimTargets
        ARCHIVE DESTINATION lib INCLUDES DESTINATION ${NKISIM_INCLUDE_DIR})
install(EXPORT nkisimTargets NAMESPACE nkisim:: DESTINATION ${NKISIM_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/nkisimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/nkisimConfig.cmake INSTALL_DESTINATION ${NKISIM_CMAKE_DIR}
  PATH_VARS NKISIM_PYTHON_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/nkisimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/nkisimConfig.cmake ${CMAKE_BINARY_DIR}/nkisimConfigVersion.cmake
        DESTINATION ${NKISIM_CMAKE_DIR})

# The tools and the Python package.
install(TARGETS nki-sim nki-as nki-objdump nki-target RUNTIME DESTINATION bin)
foreach(pkg ${NKISIM_PY_PACKAGES})
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/${pkg} DESTINATION ${NKISIM_PYTHON_DIR} PATTERN "__pycache__" EXCLUDE)
endforeach()
install(TARGETS _nkisim LIBRARY DESTINATION ${NKISIM_PYTHON_DIR}/nkisim)
