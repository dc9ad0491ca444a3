# The cross tools of a toolchain file of etsb's, named by their prefix
# (ETSB_CROSS_PREFIX, which the including file sets): compilers, archiver,
# ranlib and strip. Included by aarch64-linux-gnu.cmake and board.cmake.
set(CMAKE_C_COMPILER "${ETSB_CROSS_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${ETSB_CROSS_PREFIX}g++")
set(CMAKE_AR "${ETSB_CROSS_PREFIX}ar" CACHE FILEPATH "the target's archiver")
set(CMAKE_RANLIB "${ETSB_CROSS_PREFIX}ranlib" CACHE FILEPATH "the target's ranlib")
set(CMAKE_STRIP "${ETSB_CROSS_PREFIX}strip" CACHE FILEPATH "the target's strip")
