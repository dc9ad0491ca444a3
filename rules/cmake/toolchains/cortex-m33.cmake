# CMake toolchain for a Cortex-M33 (QEMU's mps2-an505 board, the class of the RP2350) without an
# operating system: etsb's platform cortex-m33; board.cmake says the rest.
#
#   cmake -G Ninja -S <project> -B <build> -Detsb_DIR=$(etsb --cmakedir) \
#         -DCMAKE_TOOLCHAIN_FILE=$(etsb --cmakedir)/toolchains/cortex-m33.cmake \
#         -DEXECUTORCH_ROOT=<an ExecuTorch tree> -DETSB_CONFIG=size
set(ETSB_PLATFORM cortex-m33)
include("${CMAKE_CURRENT_LIST_DIR}/board.cmake")
