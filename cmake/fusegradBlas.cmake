# fusegradBlas.cmake -- fusegrad_find_blas(<option> <what OFF does>): the BLAS that the cache option <option> names,
# for Eigen's EIGEN_USE_BLAS.
#
# <option> holds ON (the first BLAS CMake finds, or BLA_VENDOR's) or a FindBLAS vendor, in any case (openblas is
# OpenBLAS). Only libraries with 32-bit integers qualify, as Eigen calls them. What cannot be used is a configure
# error that names <option> and says what to do (<what OFF does> ends its advice to set <option>=OFF). Sets in the
# caller's scope:
#   fusegrad_blas_vendor        the FindBLAS vendor (All for ON without BLA_VENDOR)
#   fusegrad_blas_libraries     its libraries, by path
#   fusegrad_blas_linker_flags  the linker flags FindBLAS asks for
function(fusegrad_find_blas option off_does)
  set(setting "${${option}}")
  # FindBLAS's vendor names are case-sensitive: accept any case of the common ones.
  string(TOUPPER "${setting}" upper_setting)
  set(vendor ${setting})
  foreach(known OpenBLAS FlexiBLAS FLAME ATLAS Generic Apple NVHPC Arm Arm_mp Intel10_32 Intel10_64lp
                Intel10_64lp_seq Intel10_64_dyn ACML ACML_MP Goto IBMESSL SunPerf EML EML_mt All)
    string(TOUPPER ${known} upper_known)
    if(upper_setting STREQUAL upper_known)
      set(vendor ${known})
    endif()
  endforeach()
  if(upper_setting MATCHES "^(ON|TRUE|YES|Y|1)$")
    set(vendor All)
    if(BLA_VENDOR)  # the user's choice among what ON may find
      set(vendor ${BLA_VENDOR})
    endif()
  endif()
  if(vendor MATCHES "ilp|ILP")
    message(FATAL_ERROR "${option}=${setting}: Eigen passes the BLAS 32-bit integers, and ${vendor} takes 64-bit "
                        "ones; name the same library's LP64 interface (such as Intel10_64lp_seq)")
  endif()
  if(DEFINED ENV{BLA_VENDOR} AND NOT "$ENV{BLA_VENDOR}" STREQUAL vendor)
    message(FATAL_ERROR "${option}=${setting}, but the environment's BLA_VENDOR=$ENV{BLA_VENDOR} would choose "
                        "FindBLAS's vendor: unset it, or set ${option}=$ENV{BLA_VENDOR}")
  endif()
  set(BLA_VENDOR ${vendor})
  set(BLA_SIZEOF_INTEGER 4)  # CMake 3.22 and later: only libraries with 32-bit integers, as Eigen calls them
  find_package(BLAS)
  if(NOT BLAS_FOUND)
    set(hint "")
    if(vendor MATCHES "^(OpenBLAS|All)$")
      set(hint " (Debian: apt-get install libopenblas-serial-dev, or libopenblas-dev for its threaded build)")
    endif()
    message(FATAL_ERROR "${option}=${setting}: CMake's FindBLAS finds no BLAS of vendor '${vendor}' (FindBLAS's "
                        "vendor names: OpenBLAS, FlexiBLAS, FLAME, Intel10_64lp_seq, Generic, ...). Install it${hint}, "
                        "name another, or set ${option}=OFF ${off_does}")
  endif()
  set(fusegrad_blas_vendor ${vendor} PARENT_SCOPE)
  set(fusegrad_blas_libraries "${BLAS_LIBRARIES}" PARENT_SCOPE)
  set(fusegrad_blas_linker_flags "${BLAS_LINKER_FLAGS}" PARENT_SCOPE)
endfunction()
