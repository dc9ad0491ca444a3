# CMake toolchain for 64-bit Arm Linux (glibc), with Debian's cross compiler
# (package g++-aarch64-linux-gnu) and its target libraries in
# /usr/aarch64-linux-gnu:
#
#   cmake -G Ninja -S <project> -B <build> -Detsb_DIR=$(etsb --cmakedir) \
#         -DCMAKE_TOOLCHAIN_FILE=$(etsb --cmakedir)/toolchains/aarch64-linux-gnu.cmake
#
# Programs the build runs (etsb's tools, flatc) stay the host's; what it
# compiles is for aarch64, with the flags etsb's platform table gives
# aarch64-linux (ETSB_PLATFORM; rules/etsb.cmake asks etsb for them). Model
# binaries need ExecuTorch's runtime compiled from a tree:
#   et_model_binary(NAME mlp MODEL mlp.pte RUNTIME static)
# with -DEXECUTORCH_ROOT=<tree> (and -DETSB_CONFIG=size to ship them). CMAKE_CROSSCOMPILING_EMULATOR runs the target's
# programs on the host where qemu-user is installed:
#   qemu-aarch64 -L /usr/aarch64-linux-gnu <program>
# The compilers are the ones etsb's platform table names for aarch64-linux
# (tools/selective_build/driver/platforms.py); another prefix or sysroot:
# -DETSB_CROSS_PREFIX=... -DETSB_CROSS_SYSROOT=...
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
# The platform's name in etsb's table (tools/selective_build/driver/platforms.py).
set(ETSB_PLATFORM aarch64-linux)

set(ETSB_CROSS_PREFIX "aarch64-linux-gnu-" CACHE STRING "the cross tools' name prefix (aarch64-linux-gnu-g++)")
set(ETSB_CROSS_SYSROOT "/usr/aarch64-linux-gnu" CACHE PATH "the target's headers and libraries")

include("${CMAKE_CURRENT_LIST_DIR}/cross_tools.cmake")

# find_* look for the target's libraries and headers in the sysroot only,
# and for programs on the host only.
set(CMAKE_FIND_ROOT_PATH "${ETSB_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64;-L;${ETSB_CROSS_SYSROOT}")
