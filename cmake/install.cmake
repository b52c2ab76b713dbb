# cmake/install.cmake: what `cmake --install` puts where (GNUInstallDirs throughout): the
# library, the .icd file naming it, the public extension headers, and the documentation.
# Included by the root CMakeLists.txt after the `kiln` target is defined.

set(KILN_SONAME "${CMAKE_SHARED_LIBRARY_PREFIX}kiln${CMAKE_SHARED_LIBRARY_SUFFIX}.${KILN_SOVERSION}")

# No libkiln.so development link: nothing links against Kiln, the loader dlopen()s it.
install(TARGETS kiln LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)

# SYSCONFDIR/OpenCL/vendors/kiln.icd, written at install time (see install_icd.cmake.in).
configure_file(${CMAKE_CURRENT_LIST_DIR}/install_icd.cmake.in ${CMAKE_BINARY_DIR}/install_icd.cmake @ONLY)
install(SCRIPT ${CMAKE_BINARY_DIR}/install_icd.cmake)

install(FILES
  ${CMAKE_SOURCE_DIR}/include/CL/kiln_command_buffer.h
  ${CMAKE_SOURCE_DIR}/include/CL/cl_ext_qcom.h
  ${CMAKE_SOURCE_DIR}/include/CL/kiln_arm_scheduling_controls.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/CL)

# Documentation: README, docs/*.md and a Debian-style copyright file made from LICENSE.
file(GLOB KILN_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${KILN_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The machine-readable format (DEP-5): the license text indented, blank lines as " .".
file(READ ${CMAKE_SOURCE_DIR}/LICENSE KILN_LICENSE_BODY)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${KILN_LICENSE_BODY}")
set(KILN_COPYRIGHT_LINE "${CMAKE_MATCH_1}")
string(STRIP "${KILN_LICENSE_BODY}" KILN_LICENSE_BODY)
string(REPLACE "\n" "\n " KILN_LICENSE_BODY " ${KILN_LICENSE_BODY}")
string(REGEX REPLACE "\n +\n" "\n .\n" KILN_LICENSE_BODY "${KILN_LICENSE_BODY}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/copyright.in ${CMAKE_BINARY_DIR}/copyright @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
