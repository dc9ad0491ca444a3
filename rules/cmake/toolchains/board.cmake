# What every board's CMake toolchain file (cortex-m55.cmake, cortex-m4.cmake,
# cortex-m33.cmake, each naming its platform in ETSB_PLATFORM, then including
# this) sets: a Cortex-M core without an operating system, with Debian's
# arm-none-eabi GCC and newlib (packages gcc-arm-none-eabi,
# libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib):
#
#   cmake -G Ninja -S <project> -B <build> -Detsb_DIR=$(etsb --cmakedir) \
#         -DCMAKE_TOOLCHAIN_FILE=$(etsb --cmakedir)/toolchains/cortex-m55.cmake \
#         -DEXECUTORCH_ROOT=<an ExecuTorch tree> -DETSB_CONFIG=size
#
# etsb's rules then compile for that platform of etsb's table
# (tools/selective_build/driver/platforms.py: the core's -mcpu and FPU,
# -mthumb -mfloat-abi=hard, newlib-nano, system calls over semihosting), asked of
# etsb while configuring (ETSB_PLATFORM). A model binary needs RUNTIME static:
# ExecuTorch's runtime from the tree brings the board's support as the
# driver's does, from etsb's platforms/cortex_m (found from etsb itself, a
# checkout or an installed copy): the board's linker scripts (<board>.ld,
# sections.ld), startup.cpp and ExecuTorch's platform layer pal.cpp. Binaries
# always link the deploy runner and print through semihosting;
# CMAKE_CROSSCOMPILING_EMULATOR (set by etsb's rules from the platform's row)
# runs them under QEMU, e.g. for the Cortex-M55:
#   qemu-system-arm -M mps3-an547 -icount shift=0 -display none -monitor none -serial none \
#     -semihosting-config enable=on,target=native -kernel <binary> [-append "<arguments>"]
# Another prefix: -DETSB_CROSS_PREFIX=...
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ETSB_CROSS_PREFIX "arm-none-eabi-" CACHE STRING "the cross tools' name prefix (arm-none-eabi-g++)")

include("${CMAKE_CURRENT_LIST_DIR}/cross_tools.cmake")

# No program links without the board's start-up code and memory layout, which
# come with etsb's rules: CMake's compiler checks build a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
