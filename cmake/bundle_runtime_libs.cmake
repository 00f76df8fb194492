# Copies a shared library and the non-system libraries it needs (libgfortran, libquadmath, libgomp) into
# DEST, so executables with rpath $ORIGIN run on a machine that lacks them (the GPU machine).
# Usage: cmake -DLIB=/path/libopenblas.so -DDEST=dir -P bundle_runtime_libs.cmake
file(REAL_PATH "${LIB}" real_lib)
file(GET_RUNTIME_DEPENDENCIES
  LIBRARIES "${real_lib}"
  RESOLVED_DEPENDENCIES_VAR deps
  # glibc and libgcc are on every Linux machine; libgfortran, libquadmath and libgomp may not be.
  PRE_EXCLUDE_REGEXES "^ld-linux" "^libc\\.so" "^libm\\.so" "^libgcc_s" "^libpthread" "^libdl" "^librt")
# The library under the soname the executables ask for (libopenblas.so.0).
execute_process(COMMAND objdump -p "${real_lib}" OUTPUT_VARIABLE dump)
string(REGEX MATCH "SONAME +([^\n ]+)" _ "${dump}")
set(soname "${CMAKE_MATCH_1}")
if(NOT EXISTS "${DEST}/${soname}" OR "${real_lib}" IS_NEWER_THAN "${DEST}/${soname}")
  file(COPY_FILE "${real_lib}" "${DEST}/${soname}")
endif()
foreach(dep IN LISTS deps)
  get_filename_component(name "${dep}" NAME)
  file(REAL_PATH "${dep}" real_dep)
  if(NOT EXISTS "${DEST}/${name}")
    file(COPY_FILE "${real_dep}" "${DEST}/${name}")
  endif()
endforeach()
