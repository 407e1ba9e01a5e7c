# tests/install/check.cmake -- builds and runs a consumer of fusegrad (cmake -P; see tests/CMakeLists.txt).
#   MODE=find_package:     `cmake --install` this build tree into WORK_DIR/prefix, then build
#                          tests/install/consumer against that prefix with find_package(fusegrad).
#   MODE=add_subdirectory: build tests/install/subdir_consumer, which adds the source tree itself.
# Both run the consumer, which exits 0 only if fusegrad computed the right numbers. BLAS: the main build's FUSEGRAD_BLAS.
foreach(var MODE FUSEGRAD_SOURCE_DIR FUSEGRAD_BINARY_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()

# run(<step> <command...>): runs a command, fails the test with its output if it fails.
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message("${command}\n${output}")  # as is: FATAL_ERROR would re-wrap the lines
    message(FATAL_ERROR "${MODE}: ${step} failed (${result}); command and output above")
  endif()
  message(STATUS "${MODE}: ${step}: ok")
  set(output "${output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
set(configure_args -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CONFIG)
  list(APPEND configure_args -DCMAKE_BUILD_TYPE=${CONFIG})
endif()
# A main build configured with a BLAS: the consumer expects EIGEN_USE_BLAS from fusegrad's target (and links the BLAS
# through it); one that adds the source tree configures it with the same BLAS.
if(BLAS)
  list(APPEND configure_args -DFUSEGRAD_EXPECT_BLAS=ON)
endif()
# Use the very Eigen and Boost the main build found.
foreach(dep Eigen3_DIR Boost_DIR)
  if(${dep})
    list(APPEND configure_args -D${dep}=${${dep}})
  endif()
endforeach()

if(MODE STREQUAL "find_package")
  run("install" ${CMAKE_COMMAND} --install ${FUSEGRAD_BINARY_DIR} --prefix ${prefix})
  foreach(installed include/fusegrad/error.hpp include/fusegrad/shape/shape.hpp
                    share/cmake/fusegrad/fusegradConfig.cmake share/cmake/fusegrad/fusegradConfigVersion.cmake
                    share/cmake/fusegrad/fusegradTargets.cmake)
    if(NOT EXISTS ${prefix}/${installed})
      message(FATAL_ERROR "find_package: ${installed} is missing from the installed tree ${prefix}")
    endif()
  endforeach()
  run("configure consumer" ${CMAKE_COMMAND} -S ${FUSEGRAD_SOURCE_DIR}/tests/install/consumer -B ${build}
      ${configure_args} -DCMAKE_PREFIX_PATH=${prefix} -DFUSEGRAD_EXPECTED_PREFIX=${prefix})
elseif(MODE STREQUAL "add_subdirectory")
  run("configure consumer" ${CMAKE_COMMAND} -S ${FUSEGRAD_SOURCE_DIR}/tests/install/subdir_consumer -B ${build}
      ${configure_args} -DFUSEGRAD_SOURCE_DIR=${FUSEGRAD_SOURCE_DIR} -DFUSEGRAD_BLAS=${BLAS})
else()
  message(FATAL_ERROR "check.cmake: unknown MODE '${MODE}'")
endif()

run("build consumer" ${CMAKE_COMMAND} --build ${build})
run("run consumer" ${build}/consumer)
message(STATUS "${MODE}: consumer says:\n${output}")
