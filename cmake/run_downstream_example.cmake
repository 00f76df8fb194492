# Installs this build into a scratch prefix, configures and builds examples/downstream against
# it with find_package(tilekit), runs both executables (shared and static library), and has the
# installed CLI draw a plot with its installed scripts, and its report once the prefix is moved.
# Usage: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P run_downstream_example.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/downstream" -B "${WORK_DIR}/build"
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
run("${WORK_DIR}/build/tilekit_example")
run("${WORK_DIR}/build/tilekit_example_static")
# The installed CLI draws plots with the scripts installed beside it, not the source tree's.
execute_process(COMMAND "${WORK_DIR}/prefix/bin/tilekit" occupancy --arch sm_90 --threads 256
                        --regs 64 --sweep --plot "${WORK_DIR}/occupancy.png"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK_DIR}/occupancy.png")
  message(FATAL_ERROR "the installed tilekit could not plot (${rc}):\n${out}\n${err}")
endif()
string(FIND "${err}" "from ${WORK_DIR}/prefix/share/tilekit/scripts" installed_scripts)
if(installed_scripts EQUAL -1)
  message(FATAL_ERROR "the installed tilekit did not plot with its installed scripts:\n${err}")
endif()
# Moved away from where it was installed, with no source tree beside it, the installed CLI still
# finds its data beside itself: `tilekit report` draws its plots with the moved prefix's scripts.
file(RENAME "${WORK_DIR}/prefix" "${WORK_DIR}/moved")
execute_process(COMMAND "${WORK_DIR}/moved/bin/tilekit" report --quick --backend cpu
                        --out "${WORK_DIR}/report"
                WORKING_DIRECTORY "${WORK_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK_DIR}/report/gflops_vs_n.png"
   OR NOT EXISTS "${WORK_DIR}/report/roofline.png")
  message(FATAL_ERROR "the moved tilekit could not draw its report (${rc}):\n${out}\n${err}")
endif()
string(FIND "${out}${err}" "plots written by ${WORK_DIR}/moved/share/tilekit/scripts/plot_report.py"
       moved_scripts)
if(moved_scripts EQUAL -1)
  message(FATAL_ERROR "the moved tilekit did not plot with the scripts beside it:\n${out}\n${err}")
endif()
