# cmake/packaging.cmake: the Debian package kiln-opencl-icd, made by CPack's DEB generator
# from the install rules (cmake/install.cmake). scripts/package.sh drives it; why CPack
# rather than a debian/ directory is in docs/install.md.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kiln-opencl-icd)
set(CPACK_PACKAGE_VENDOR "The Kiln authors")
set(CPACK_PACKAGE_CONTACT "The Kiln authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "OpenCL 3.0 driver (ICD) for CPUs")
set(CPACK_PACKAGE_DESCRIPTION
  "Kiln is an OpenCL 3.0 installable client driver for CPUs: the OpenCL ICD loader\n\
(ocl-icd) lists it as the platform Kiln, with one CPU device. OpenCL C is compiled\n\
in process by Clang 19 and JIT-compiled by LLVM 19. It offers cl_khr_command_buffer,\n\
cl_qcom_recordable_queues, cl_arm_import_memory, cl_arm_scheduling_controls and\n\
cl_intel_command_queue_families on any CPU.")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)

set(CPACK_DEBIAN_PACKAGE_NAME kiln-opencl-icd)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kiln-opencl-icd_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: dpkg-shlibdeps maps every DT_NEEDED library to its run-time package; the loader
# is added by hand because nothing links against it (it dlopen()s Kiln), as Debian's ICDs do.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ocl-icd-libopencl1 | libopencl1")
set(CPACK_DEBIAN_PACKAGE_PROVIDES opencl-icd)
# SPIR-V programs run the translator program (docs/spirv.md); without it the device
# reports no IL and everything else works.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS llvm-spirv-15)
# Installed with DESTDIR so that the install-time script writing the .icd
# (install_icd.cmake.in) sees the real prefix, not CPack's staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# Stripped, as a distribution's package is (RelWithDebInfo builds carry ~10x the code's size).
set(CPACK_STRIP_FILES ON)
# The .icd under /etc is deliberately NOT a conffile (no conffiles control file): a plain
# `apt remove` / `dpkg -r` must take it away, since an .icd left behind names a library
# that is gone (docs/install.md).

include(CPack)
